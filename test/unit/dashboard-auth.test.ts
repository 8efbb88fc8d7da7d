import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { clearedSignInCookies, cookiePolicy, readCookies, signInCookies } from "../../src/auth/cookies.ts";
import { crossSiteReason } from "../../src/auth/dashboard-auth.ts";
import { s256Challenge, verifierMatches } from "../../src/auth/opaque-tokens.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { createMailer } from "../../src/mailer.ts";
import { isLocalPath } from "../../src/services/sign-ins/sign-in.ts";

describe("PKCE", () => {
  it("matches RFC 7636 appendix B and accepts S256 verifiers only", () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    expect(s256Challenge(verifier)).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    expect(verifierMatches(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(true);
    expect(verifierMatches(verifier.slice(1), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(false);
    // `plain`: the challenge is the verifier itself; never accepted.
    expect(verifierMatches(verifier, verifier)).toBe(false);
    expect(verifierMatches("short", s256Challenge("short"))).toBe(false);
    expect(verifierMatches(undefined, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(false);
  });
});

describe("redirects after sign-in", () => {
  it("accepts paths on this site only", () => {
    for (const ok of ["/", "/ws/acme", "/ws/acme/keys?tab=revoked#top"]) expect(isLocalPath(ok), ok).toBe(true);
    for (const bad of [
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "javascript:alert(1)",
      "/a\tb",
      "ws/acme",
      "/%0d%0aSet-Cookie:x",
      "",
    ]) {
      if (bad === "/%0d%0aSet-Cookie:x")
        expect(isLocalPath(bad)).toBe(true); // percent-encoded: stays a path on this site
      else expect(isLocalPath(bad), bad).toBe(false);
    }
  });
});

describe("dashboard cookies", () => {
  const issued = { accessToken: "a.b.c", accessExpiresAt: new Date(3595_000), refreshToken: "r".repeat(43), refreshExpiresAt: new Date(14 * 86400_000) };

  it("are __Host-/__Secure- and Secure except for plain http on loopback", () => {
    expect(signInCookies(cookiePolicy("https://vessel.example"), issued, new Date(0))).toEqual([
      "__Host-vs_at=a.b.c; Path=/; Max-Age=3595; HttpOnly; SameSite=Lax; Secure",
      `__Secure-vs_rt=${"r".repeat(43)}; Path=/graphql; Max-Age=1209600; HttpOnly; SameSite=Lax; Secure`,
    ]);
    for (const base of ["http://localhost:8080", "http://127.0.0.1:9"]) expect(cookiePolicy(base)).toMatchObject({ secure: false, access: "vs_at" });
    for (const base of ["http://vessel.internal", "https://localhost"]) expect(cookiePolicy(base)).toMatchObject({ secure: true, access: "__Host-vs_at" });
    expect(clearedSignInCookies(cookiePolicy("https://x.example"))).toEqual([
      "__Host-vs_at=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
      "__Secure-vs_rt=; Path=/graphql; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
    ]);
  });

  it("are read from a Cookie header, first value winning", () => {
    expect([...readCookies('a=1; vs_at=x; vs_at=y; junk; b="q"')]).toEqual([
      ["a", "1"],
      ["vs_at", "x"],
      ["b", "q"],
    ]);
  });

  it("authenticate only same-origin browser requests", () => {
    const origins = ["https://vessel.example"];
    expect(crossSiteReason({}, origins)).toBeNull();
    expect(crossSiteReason({ "sec-fetch-site": "same-origin", origin: "https://vessel.example" }, origins)).toBeNull();
    expect(crossSiteReason({ "sec-fetch-site": "none" }, origins)).toBeNull();
    expect(crossSiteReason({ "sec-fetch-site": "same-site" }, origins)).not.toBeNull();
    expect(crossSiteReason({ "sec-fetch-site": "cross-site" }, origins)).not.toBeNull();
    expect(crossSiteReason({ origin: "null" }, origins)).not.toBeNull();
    expect(crossSiteReason(new Headers({ origin: "https://evil.example" }), origins)).not.toBeNull();
  });
});

describe("mail without SMTP (the embedded default)", () => {
  it("writes the mail, link included, to the log with a development-mail marker", async () => {
    const lines: string[] = [];
    const log = createLogger("info", new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const mailer = createMailer(loadConfig({}, "/nonexistent"), log);
    expect(mailer.kind).toBe("log");
    mailer.send({ to: "ada@example.test", subject: "Your Vessel sign-in link", text: "http://localhost:8080/dashboard/sign-in?token=abc" });
    await mailer.flush();
    expect(lines.join("")).toMatch(/DEVELOPMENT MAIL/);
    expect(lines.join("")).toContain("dashboard/sign-in?token=abc");
  });

  it("with SMTP that fails, logs the failure without the mail's body or address", async () => {
    const lines: string[] = [];
    const log = createLogger("info", new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const mailer = createMailer(loadConfig({ VESSEL_SMTP_HOST: "127.0.0.1", VESSEL_SMTP_PORT: "1", VESSEL_SMTP_TLS: "none" }, "/nonexistent"), log);
    mailer.send({ to: "ada@example.test", subject: "s", text: "token=secret-link-token" });
    await mailer.flush();
    const out = lines.join("");
    expect(out).toMatch(/mail could not be sent/);
    expect(out).not.toMatch(/secret-link-token|ada@/);
    await mailer.close();
  });
});
