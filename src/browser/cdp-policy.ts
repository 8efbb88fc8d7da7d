import path from "node:path";

/**
 * What a CDP client may not ask of its session's Chromium, because it reaches the host rather than
 * the web (security.md §1.13, I49–I55): local files, browser-internal pages, download folders and
 * uploads outside the session's own folder, extensions from disk, and proxies that would route
 * around the egress policy. Everything else passes untouched.
 */

/** Any of these bytes in a message means it needs a closer look; most messages contain none. */
export const suspiciousMarkers = [
  "file:", "chrome:", "devtools:", "chrome-extension:", "view-source:", "chrome-untrusted:",
  "DownloadBehavior", "setFileInputFiles", "loadUnpacked", "roxyServer", "roxyBypass", "executeBrowserCommand", "loadNetworkResource",
].map((m) => Buffer.from(m, "latin1"));

/** A cheap look at a raw message: true when no marker is present, so it cannot be refused. */
export function plainlyHarmless(payload: Buffer): boolean {
  for (const marker of suspiciousMarkers) if (payload.indexOf(marker) >= 0) return false;
  return true;
}

const hostSchemes = /^\s*(?:file|chrome|devtools|chrome-extension|chrome-untrusted|view-source)\s*:/i;

/** Methods refused whatever their parameters. */
const refusedMethods: Record<string, string> = {
  "Extensions.loadUnpacked": "loading extensions from the server's disk is not allowed",
  "Browser.executeBrowserCommand": "browser commands are not allowed",
};

/** Parameters that name a URL the browser would load. */
const urlParams = new Set(["url", "frameURL", "baseURL"]);

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
  if (method === "DOM.setFileInputFiles") {
    const files = Array.isArray(params.files) ? params.files : [];
    if (!files.every((f) => insideFolder(path.resolve(downloads), f))) return "uploads may only come from the session's own folder";
  }
  if (method === "Target.createBrowserContext" && (params.proxyServer !== undefined || params.proxyBypassList !== undefined)) {
    return "browser contexts cannot set their own proxy (traffic leaves through the session's egress policy)";
  }
  for (const [name, value] of Object.entries(params)) {
    if (urlParams.has(name) && typeof value === "string" && hostSchemes.test(value)) {
      return `${value.split(":")[0]}: addresses reach the server, not the web, and are not allowed`;
    }
  }
  return null;
}
