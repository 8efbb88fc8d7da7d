import http from "node:http";
import type { AddressInfo } from "node:net";
import { Secret, TOTP } from "otpauth";

/** One sign-in the site received: what the form posted and whether it was right. */
export interface SignIn {
  username: string;
  password: string;
  otp: string;
  ok: boolean;
}

export interface LoginSite {
  /** `http://<host>:<port>` */
  origin: string;
  signIns: SignIn[];
  /** What any form on the site posted, raw (a framed form too). */
  posts: string[];
  close(): Promise<void>;
}

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>${body}</body></html>`;

/**
 * A fixture site with a login form marked up as password managers expect (autocomplete `username`,
 * `current-password`, `one-time-code`), posting to /session, which checks the credentials and the
 * TOTP code (RFC 6238, ±1 step) and answers "Welcome". GET /framed embeds `frameSrc` (a login page
 * of another origin) in an iframe; GET /plain has fields without autocomplete tokens.
 */
export async function startLoginSite(
  expect: { username: string; password: string; totpSecret: string },
  opts: { host?: string; frameSrc?: string } = {},
): Promise<LoginSite> {
  const signIns: SignIn[] = [];
  const posts: string[] = [];
  const totp = new TOTP({ secret: Secret.fromBase32(expect.totpSecret), digits: 6, period: 30, algorithm: "SHA1" });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.setHeader("cache-control", "no-store");
    if (req.method === "POST" && path === "/session") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        posts.push(body);
        const form = new URLSearchParams(body);
        const signIn = { username: form.get("username") ?? "", password: form.get("password") ?? "", otp: form.get("otp") ?? "" };
        const ok = signIn.username === expect.username && signIn.password === expect.password && totp.validate({ token: signIn.otp, window: 1 }) !== null;
        signIns.push({ ...signIn, ok });
        res.end(page(ok ? `<h1 id="welcome">Welcome</h1>` : `<h1 id="denied">Denied</h1>`));
      });
      return;
    }
    if (path === "/login") {
      res.end(
        page(`<form method="post" action="/session">
  <input name="username" autocomplete="username">
  <input name="password" type="password" autocomplete="current-password">
  <input name="otp" inputmode="numeric" autocomplete="one-time-code">
  <button type="submit">Sign in</button>
</form>
<script>
  window.keys = 0;
  document.addEventListener("keydown", (e) => { if (e.isTrusted) window.keys++; }, true);
</script>`),
      );
      return;
    }
    if (path === "/plain") {
      res.end(
        page(`<form method="post" action="/session">
  <input name="username" type="email"><input name="password" type="password"><input name="otp" id="otp">
  <button>Sign in</button></form>`),
      );
      return;
    }
    if (path === "/framed") {
      res.end(page(`<h1>Embedded sign-in</h1><iframe id="login" src="${opts.frameSrc ?? "about:blank"}" width="400" height="300"></iframe>`));
      return;
    }
    res.statusCode = 404;
    res.end(page("not found"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${opts.host ?? "127.0.0.1"}:${port}`,
    signIns,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
