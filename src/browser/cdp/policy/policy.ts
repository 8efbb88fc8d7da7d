import path from "node:path";
import { curatedMethods, neverAllowed } from "./allowlist.ts";
import { recordedMethods } from "./recorded-methods.ts";
import { hostAddressIn } from "./url-scan.ts";

/**
 * What a CDP client may ask of its session's Chromium (issue 17, layer 1): an allow-list of methods
 * (what Puppeteer, Playwright and chrome-remote-interface were recorded sending, plus a curated set
 * in allowlist.ts), each command judged on every string anywhere in its parameters
 * (url-scan.ts: no host addresses, JSON inside strings included), and a few methods on their
 * parameters: flat sessions only, no browser contexts with their own proxy, files and download
 * folders only in the session's own folder, no system-wide tracing.
 *
 * The multiplexer calls judgeCommand on every client command after parsing it; the verdict is to
 * send it on, refuse it (a CDP error with the client's id, and a cdp.refused event), or send other
 * parameters instead (a download folder pointed at the session's own).
 */

export interface PolicyContext {
  /** The session's own download folder (absolute): the only place downloads go and uploads come from. */
  downloads: string;
}

export type Verdict = { kind: "pass" } | { kind: "refuse"; reason: string } | { kind: "rewrite"; params: Record<string, unknown> };

type Params = Record<string, unknown>;
type Rule = (params: Params, ctx: PolicyContext) => Verdict;

const PASS: Verdict = Object.freeze({ kind: "pass" });
const refuse = (reason: string): Verdict => ({ kind: "refuse", reason });

/** Every method a client may call: recorded ∪ curated, never the never-allowed ones. */
export const allowedMethods: ReadonlySet<string> = new Set(
  [...recordedMethods, ...Object.entries(curatedMethods).flatMap(([domain, names]) => names.map((n) => `${domain}.${n}`))].filter((m) => !(m in neverAllowed)),
);

function inside(folder: string, candidate: unknown): boolean {
  // Control characters have no place in a real path, and a NUL would cut it short in Chromium.
  if (typeof candidate !== "string" || !path.isAbsolute(candidate) || /[\x00-\x1f]/.test(candidate)) return false;
  const resolved = path.resolve(candidate); // `..` is resolved here, as the kernel would
  return resolved === folder || resolved.startsWith(folder + path.sep);
}

/** The session folder, resolved (a session's commands come one after another: the last one is kept). */
let lastFolder = { given: "", resolved: "" };
function folderOf(ctx: PolicyContext): string {
  if (lastFolder.given !== ctx.downloads) lastFolder = { given: ctx.downloads, resolved: path.resolve(ctx.downloads) };
  return lastFolder.resolved;
}

/**
 * Files a page receives from the server's disk (a file input, files dropped on it): only the session
 * folder's, that is its downloads and the files uploaded into it (POST /v1/sessions/{id}/files), which
 * live beside its downloads in the browser's folder.
 */
function filesFrom(files: unknown, ctx: PolicyContext): Verdict {
  if (files === undefined) return PASS;
  const folder = folderOf(ctx);
  const uploads = path.join(path.dirname(folder), "uploads");
  if (Array.isArray(files) && files.every((f) => inside(folder, f) || inside(uploads, f))) return PASS;
  return refuse("uploads may only come from the session's own folder");
}

/**
 * Downloads stay in the session's folder. `allowAndName` (the files get Chromium's ids as names)
 * with another folder is pointed at the session's: Playwright's connectOverCDP sets a folder of its
 * own that way while connecting and fails when that call fails. `default` (Chromium's own folder,
 * a host path in full Chromium) becomes what Vessel sets by default, `allow` into the session
 * folder. `allow` elsewhere is refused: the client asked for its names in a folder it cannot have.
 */
function downloadBehaviour(params: Params, ctx: PolicyContext): Verdict {
  const folder = folderOf(ctx);
  switch (params.behavior) {
    case "deny":
      return PASS;
    case "allow":
      return inside(folder, params.downloadPath)
        ? PASS
        : refuse("downloads stay in the session's own folder (they are listed at GET /v1/sessions/{id}/downloads)");
    case "allowAndName":
      return inside(folder, params.downloadPath) ? PASS : { kind: "rewrite", params: { ...params, downloadPath: ctx.downloads } };
    case "default":
      return { kind: "rewrite", params: { ...params, behavior: "allow", downloadPath: ctx.downloads } };
    default:
      return refuse("unknown download behaviour");
  }
}

/** Non-flat sessions talk through Target.sendMessageToTarget, which carries commands inside a string. */
function flatOnly(params: Params): Verdict {
  return params.flatten === true ? PASS : refuse("only flat sessions (flatten: true) are available");
}

const rules = new Map<string, Rule>([
  ["Target.attachToTarget", flatOnly],
  // Turning auto-attach off attaches nothing, flat or not.
  ["Target.setAutoAttach", (p) => (p.autoAttach === false ? PASS : flatOnly(p))],
  [
    "Target.createBrowserContext",
    (p) =>
      p.proxyServer !== undefined || p.proxyBypassList !== undefined
        ? refuse("browser contexts cannot set their own proxy (traffic leaves through the session's egress policy)")
        : p.originsWithUniversalNetworkAccess !== undefined
          ? refuse("browser contexts cannot grant origins universal network access")
          : PASS,
  ],
  ["Browser.setDownloadBehavior", downloadBehaviour],
  ["Page.setDownloadBehavior", downloadBehaviour],
  ["DOM.setFileInputFiles", (p, ctx) => filesFrom(p.files, ctx)],
  ["Input.dispatchDragEvent", (p, ctx) => filesFrom((p.data as { files?: unknown } | undefined)?.files, ctx)],
  // The system backend talks to the host's tracing service; a Perfetto config is an opaque
  // protobuf that could ask for it (or for files); systrace reads the host's kernel trace.
  [
    "Tracing.start",
    (p) =>
      p.tracingBackend === "system" || p.perfettoConfig !== undefined || (p.traceConfig as { enableSystrace?: unknown } | undefined)?.enableSystrace === true
        ? refuse("only the browser's own tracing is available (no system backend, Perfetto config or systrace)")
        : PASS,
  ],
]);

/** The verdict on one client command (see above). `params` is the command's `params` as parsed. */
export function judgeCommand(method: string, params: unknown, ctx: PolicyContext): Verdict {
  if (!allowedMethods.has(method)) return refuse(`${method} is not available through Vessel`);
  if (params === undefined || params === null) return rules.has(method) ? rules.get(method)!({}, ctx) : PASS;
  const address = hostAddressIn(params);
  if (address) return refuse(address);
  const rule = rules.get(method);
  if (!rule) return PASS;
  return rule(typeof params === "object" && !Array.isArray(params) ? (params as Params) : {}, ctx);
}

const downloadMethods = new Set(["Browser.setDownloadBehavior", "Page.setDownloadBehavior"]);

/** A message that sets a download behaviour: the browser context it names (null: the default one), else undefined. */
export function downloadBehaviourContext(message: { method?: unknown; params?: unknown }): string | null | undefined {
  if (typeof message.method !== "string" || !downloadMethods.has(message.method)) return undefined;
  const params = (typeof message.params === "object" && message.params !== null ? message.params : {}) as Params;
  return typeof params.browserContextId === "string" ? params.browserContextId : null;
}
