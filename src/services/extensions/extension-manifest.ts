/**
 * What an extension's manifest.json must say, and what it must not ask for. An extension runs inside
 * the session's browser with APIs no CDP client has: the permissions and keys below would give it a
 * debugging channel (the DevTools protocol around the CDP policy), a native one (programs or devices
 * of the host), or a way around the egress listener. They are refused at upload, and again whenever a
 * stored extension is prepared on a node (one stored before this list existed included). Why each:
 * docs/session-options.md#refused-permissions.
 */

/** Permissions (in `permissions` or `optional_permissions`) refused, with why. */
export const REFUSED_PERMISSIONS: Readonly<Record<string, string>> = {
  debugger: "chrome.debugger speaks the DevTools protocol to every tab, around the CDP policy (it can open file:/// and read the host's files)",
  nativeMessaging: "chrome.runtime.connectNative starts programs of the host and talks to them",
  proxy: "chrome.proxy replaces the browser's proxy settings, the egress listener included",
  "downloads.open": "chrome.downloads.open opens a downloaded file with the host's own programs",
  usb: "raw USB devices of the host (Chrome Apps API)",
  hid: "raw HID devices of the host (Chrome Apps API)",
  serial: "serial ports of the host (Chrome Apps API)",
  socket: "raw TCP/UDP sockets, around the egress listener (Chrome Apps API)",
};

/** Manifest keys refused, with why. */
export const REFUSED_KEYS: Readonly<Record<string, string>> = {
  devtools_page: "a DevTools page gets chrome.devtools (inspectedWindow.eval, the network log) in every inspected tab: a debugging channel",
  automation: "chrome.automation reads and drives the accessibility tree of every tab and of the browser's own UI",
  externally_connectable: "lets web pages and other extensions open a message channel into the extension's privileged context",
  nacl_modules: "Native Client modules: native code handling content",
  plugins: "NPAPI plugins: native code loaded into the browser",
  sockets: "raw TCP/UDP sockets, around the egress listener (Chrome Apps)",
  app: "a Chrome App (its own windows, sockets and device APIs), not an extension",
};

const FILE_PATTERN_WHY = "a file: match pattern reaches the files the browser can see";

export interface Manifest {
  name: string;
  version: string;
}

/** Why the manifest is not loadable (`invalid`), or which permission is refused (`refused`). */
export type ManifestProblem = { kind: "invalid"; why: string } | { kind: "refused"; permission: string; why: string };

/** The manifest's name and version, or its first problem. */
export function checkManifest(bytes: Uint8Array): Manifest | ManifestProblem {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch {
    return { kind: "invalid", why: "manifest.json is not JSON" };
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) return { kind: "invalid", why: "manifest.json is not an object" };
  if (manifest.manifest_version !== 3) return { kind: "invalid", why: "manifest_version must be 3" };
  const { name, version } = manifest;
  if (typeof name !== "string" || name.trim() === "" || name.length > 200) return { kind: "invalid", why: "manifest.json needs a name" };
  if (typeof version !== "string" || !/^\d{1,9}(\.\d{1,9}){0,3}$/.test(version))
    return { kind: "invalid", why: "manifest.json needs a version of one to four numbers (1.2.3)" };
  const refused = refusedPart(manifest);
  if (refused) return { kind: "refused", ...refused };
  return { name: name.trim(), version };
}

function refusedPart(manifest: Record<string, unknown>): { permission: string; why: string } | undefined {
  for (const key of Object.keys(manifest)) {
    if (Object.hasOwn(REFUSED_KEYS, key)) return { permission: key, why: REFUSED_KEYS[key]! };
  }
  for (const field of ["permissions", "optional_permissions", "host_permissions", "optional_host_permissions"]) {
    for (const entry of asList(manifest[field])) {
      // Chrome Apps wrote some permissions as objects ({"socket": [...]}): their keys are the names.
      for (const name of typeof entry === "string" ? [entry] : entry && typeof entry === "object" ? Object.keys(entry) : []) {
        const known = Object.keys(REFUSED_PERMISSIONS).find((p) => p.toLowerCase() === name.toLowerCase());
        if (known) return { permission: name, why: REFUSED_PERMISSIONS[known]! };
        if (isFilePattern(name)) return { permission: name, why: FILE_PATTERN_WHY };
      }
    }
  }
  for (const script of asList(manifest.content_scripts)) {
    const matches = script && typeof script === "object" ? asList((script as { matches?: unknown }).matches) : [];
    const file = matches.find((m): m is string => typeof m === "string" && isFilePattern(m));
    if (file) return { permission: file, why: FILE_PATTERN_WHY };
  }
  return undefined;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isFilePattern = (pattern: string) => /^\s*file:/i.test(pattern);
