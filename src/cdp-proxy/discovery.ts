import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "../errors.ts";
import { problemBody } from "../kernel/problems.ts";
import type { CdpProxyPorts } from "../services/sessions/cdp-access.ts";
import { handshakeProblem } from "./proxy.ts";
import type { BrowserLease } from "../browser/pool/types.ts";

/**
 * Chromium's discovery endpoints, answered for a session's browser. The browser serves no HTTP (it
 * speaks CDP on a pipe), so its answers are rebuilt from CDP calls, with every address leading back
 * through the proxy and carrying the token the client presented.
 */

/** A discovery request waits at most this long for the browser. */
const DISCOVERY_TIMEOUT_MS = 5_000;

/** `GET /cdp/json/version` and `/cdp/json/list`: Chromium's discovery answers, with addresses that lead back through the proxy. */
export async function handleCdpDiscovery(ports: CdpProxyPorts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  try {
    const { token, lease } = await ports.authorize(req, url);
    const which = url.pathname.replace(/^\/cdp\/json\/?/, "") || "list";
    if (!["version", "list"].includes(which)) throw new AppError("not-found", "Only /cdp/json/version and /cdp/json/list are served.");
    const wsBase = `${ports.publicBaseUrl.replace(/^http/, "ws")}/cdp`;
    const body =
      which === "version"
        ? await versionEntry(lease, `${wsBase}?token=${token}`)
        : await targetEntries(lease, (id) => `${wsBase}/devtools/page/${id}?token=${token}`);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(body));
  } catch (err) {
    const error = handshakeProblem(err) ?? new AppError("service-unavailable", "The browser did not answer; retry shortly.", {}, { "Retry-After": "1" });
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.statusCode = error.status;
    res.setHeader("Content-Type", "application/problem+json");
    res.end(JSON.stringify(problemBody(error, ports.publicBaseUrl, url.pathname, "")));
  }
}

/** What Chromium's own `/json/version` says, from the pipe. */
async function versionEntry(lease: BrowserLease, webSocketDebuggerUrl: string) {
  const v = await lease.cdp.call<{ protocolVersion: string; product: string; revision: string; userAgent: string; jsVersion: string }>(
    "Browser.getVersion",
    {},
    DISCOVERY_TIMEOUT_MS,
  );
  return {
    Browser: v.product,
    "Protocol-Version": v.protocolVersion,
    "User-Agent": v.userAgent,
    "V8-Version": v.jsVersion,
    "WebKit-Version": `537.36 (${v.revision})`,
    webSocketDebuggerUrl,
  };
}

/** What Chromium's own `/json/list` says: every target but the browser, each with its endpoint through the proxy. */
async function targetEntries(lease: BrowserLease, endpoint: (targetId: string) => string) {
  const { targetInfos } = await lease.cdp.call<{ targetInfos: Array<{ targetId: string; type: string; title: string; url: string }> }>(
    "Target.getTargets",
    {},
    DISCOVERY_TIMEOUT_MS,
  );
  return targetInfos
    .filter((t) => t.type !== "browser" && t.type !== "tab")
    .map((t) => ({ description: "", id: t.targetId, title: t.title, type: t.type, url: t.url, webSocketDebuggerUrl: endpoint(t.targetId) }));
}
