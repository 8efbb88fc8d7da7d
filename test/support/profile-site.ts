import http from "node:http";
import type { AddressInfo } from "node:net";

/** What a page of the fixture site recorded in its first inline script, before anything else ran. */
export interface Saw {
  origin: string;
  /** document.cookie (httpOnly cookies are not in it). */
  cookie: string;
  local: Record<string, string>;
  session: Record<string, string>;
  /** Whether the request that served this very page carried the site's httpOnly login cookie. */
  serverSawLogin: boolean;
}

export interface SiteRequest {
  path: string;
  cookie: string;
}

export interface ProfileSite {
  /** `http://<host>:<port>` */
  origin: string;
  requests: SiteRequest[];
  close(): Promise<void>;
}

/**
 * A small site that "logs in": GET /login sets an httpOnly session cookie, a readable cookie and a
 * partitioned (CHIPS) cookie, and its page stores a token in localStorage and a tab id in
 * sessionStorage. GET /app records, in its first inline script, what the page sees at once.
 * `host` is what the browser uses to reach it (127.0.0.1 or localhost: two sites).
 */
export async function startProfileSite(
  name: string,
  secrets: { cookie: string; local: string; session: string },
  opts: { host?: string; port?: number } = {},
): Promise<ProfileSite> {
  const requests: SiteRequest[] = [];
  const loginCookie = `sid_${name}`;
  const server = http.createServer((req, res) => {
    const cookie = req.headers.cookie ?? "";
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push({ path, cookie });
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.setHeader("cache-control", "no-store");
    if (path === "/login") {
      res.setHeader("set-cookie", [
        `${loginCookie}=${secrets.cookie}; HttpOnly; Path=/; Max-Age=86400; SameSite=Lax`,
        `pref_${name}=dark; Path=/`,
        `chips_${name}=1; Secure; SameSite=None; Partitioned; Path=/`,
      ]);
      res.end(
        `<!doctype html><title>${name} login</title><script>` +
          `localStorage.setItem("token_${name}", ${JSON.stringify(secrets.local)});` +
          `sessionStorage.setItem("tab_${name}", ${JSON.stringify(secrets.session)});` +
          `</script><p>logged in</p>`,
      );
      return;
    }
    if (path === "/logout") {
      res.end(`<!doctype html><script>sessionStorage.clear(); localStorage.clear();</script><p>bye</p>`);
      return;
    }
    const serverSawLogin = cookie.split(/;\s*/).some((c) => c.startsWith(`${loginCookie}=`));
    res.end(
      `<!doctype html><title>${name} app</title><script>` +
        `window.__saw = { origin: location.origin, cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage }, ` +
        `serverSawLogin: ${serverSawLogin} };` +
        `</script><p>app</p>`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${opts.host ?? "127.0.0.1"}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
