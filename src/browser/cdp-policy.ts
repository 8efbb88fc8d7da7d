import path from "node:path";

/**
 * What a CDP client may not ask of its session's Chromium, because it reaches the host rather than
 * the web (security.md §1.13, I49–I55): local files, browser-internal pages, download folders and
 * uploads outside the session's own folder, extensions from disk, and proxies that would route
 * around the egress policy. Everything else passes untouched.
 */

/**
 * Any of these in a message (in any letter case) means it needs a closer look; most messages contain
 * none. Schemes are case-insensitive to Chromium, so the search is too.
 */
export const suspiciousMarkers = [
  "file:", "chrome:", "devtools:", "chrome-extension:", "view-source:", "chrome-untrusted:",
  "DownloadBehavior", "setFileInputFiles", "loadUnpacked", "roxyServer", "roxyBypass", "executeBrowserCommand", "loadNetworkResource",
  "dispatchDragEvent",
].map((m) => Buffer.from(m, "latin1"));

/**
 * What could hide a marker from a byte search: a JSON escape (`\u0066ile:`, any backslash) or a raw
 * control character (URL parsers drop tabs and newlines anywhere: `fi<TAB>le:`). Messages with
 * either are parsed and judged on their decoded strings.
 */
const disguise = "[\\x00-\\x1f\\\\]";
const lowerMarkers = suspiciousMarkers.map((m) => m.toString("latin1").toLowerCase());
/** One pattern for a short message: one regular-expression scan beats a dozen searches there. */
const markerPattern = new RegExp(`${lowerMarkers.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")}|${disguise}`, "i");
const disguisePattern = new RegExp(disguise);
/** Up to this size the pattern is faster (~0.2 vs ~1.4 µs at 150 bytes); beyond, plain substring searches are. */
const PATTERN_MAX_BYTES = 1024;

/** A cheap look at a raw message: true when no marker (nor anything that could disguise one) is present, so it cannot be refused. */
export function plainlyHarmless(payload: Buffer): boolean {
  const text = payload.toString("latin1");
  if (payload.length <= PATTERN_MAX_BYTES) return !markerPattern.test(text);
  if (disguisePattern.test(text)) return false;
  const lower = text.toLowerCase();
  for (const marker of lowerMarkers) if (lower.includes(marker)) return false;
  return true;
}

/** A URL as Chromium's parser reads it (WHATWG): leading and trailing C0 controls and spaces go, and tabs and newlines anywhere. */
function asParsed(url: string): string {
  return url.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "").replace(/[\t\n\r]/g, "");
}

const hostSchemes = /^(?:file|chrome|devtools|chrome-extension|chrome-untrusted|view-source):/i;

/** Methods refused whatever their parameters. */
const refusedMethods: Record<string, string> = {
  "Extensions.loadUnpacked": "loading extensions from the server's disk is not allowed",
  "Browser.executeBrowserCommand": "browser commands are not allowed",
};

/** Parameters that name a URL the browser would load. */
const urlParams = new Set(["url", "frameURL", "baseURL", "installUrlOrBundleUrl"]);

export interface CdpMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  sessionId?: unknown;
}

function insideFolder(folder: string, candidate: unknown): boolean {
  if (typeof candidate !== "string" || !path.isAbsolute(candidate)) return false;
  const resolved = path.resolve(candidate);
  return resolved === folder || resolved.startsWith(folder + path.sep);
}

const downloadMethods = new Set(["Browser.setDownloadBehavior", "Page.setDownloadBehavior"]);

/** A message that sets a download behaviour: the browser context it names (null: the default one), else undefined. */
export function downloadBehaviourContext(message: CdpMessage): string | null | undefined {
  if (typeof message.method !== "string" || !downloadMethods.has(message.method)) return undefined;
  const params = (typeof message.params === "object" && message.params !== null ? message.params : {}) as Record<string, unknown>;
  return typeof params.browserContextId === "string" ? params.browserContextId : null;
}

/**
 * `allowAndName` with a folder outside the session's own is not refused but pointed at the
 * session's folder: Playwright's connectOverCDP sets a folder of its own that way while connecting
 * and fails when that call fails, and every CDP client must work unchanged. The files get
 * Chromium's ids as names, so nothing but the folder changes. Returns the params to send instead, or null.
 */
export function redirectedDownloads(message: CdpMessage, downloads: string): Record<string, unknown> | null {
  if (downloadBehaviourContext(message) === undefined) return null;
  const params = (typeof message.params === "object" && message.params !== null ? message.params : {}) as Record<string, unknown>;
  if (params.behavior !== "allowAndName") return null;
  if (insideFolder(path.resolve(downloads), params.downloadPath)) return null;
  return { ...params, downloadPath: downloads };
}

/** Why the message is refused, or null when it may go to Chromium. `downloads` is the session's own folder. */
export function policyRefusal(message: CdpMessage, downloads: string): string | null {
  const method = typeof message.method === "string" ? message.method : "";
  const params = (typeof message.params === "object" && message.params !== null ? message.params : {}) as Record<string, unknown>;
  if (refusedMethods[method]) return refusedMethods[method]!;
  if (downloadMethods.has(method) && params.behavior === "allow" && !insideFolder(path.resolve(downloads), params.downloadPath)) {
    return "downloads stay in the session's own folder (they are listed at GET /v1/sessions/{id}/downloads)";
  }
  // Files a page receives from the server's disk: a file input, or files dropped on the page.
  const files = method === "DOM.setFileInputFiles" ? params.files
    : method === "Input.dispatchDragEvent" ? (params.data as { files?: unknown } | undefined)?.files
    : undefined;
  if (files !== undefined && !(Array.isArray(files) && files.every((f) => insideFolder(path.resolve(downloads), f)))) {
    return "uploads may only come from the session's own folder";
  }
  if (method === "Target.createBrowserContext" && (params.proxyServer !== undefined || params.proxyBypassList !== undefined)) {
    return "browser contexts cannot set their own proxy (traffic leaves through the session's egress policy)";
  }
  for (const [name, value] of Object.entries(params)) {
    if (urlParams.has(name) && typeof value === "string" && hostSchemes.test(asParsed(value))) {
      return `${asParsed(value).split(":")[0]!.toLowerCase()}: addresses reach the server, not the web, and are not allowed`;
    }
  }
  return null;
}
