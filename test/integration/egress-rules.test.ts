import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EgressPolicy, parseAllowlist } from "../../src/browser/egress/policy.ts";
import { openEgressListener } from "../../src/browser/egress/proxy.ts";
import { compileLayer } from "../../src/browser/egress/rules.ts";
import type { EgressListener, EgressRefusal } from "../../src/browser/egress/shared.ts";
import { createLogger } from "../../src/logger.ts";

/** A CONNECT through the listener: the status line it answers. */
function connect(listener: EgressListener, authority: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: listener.port, method: "CONNECT", path: authority });
    req.once("connect", (res, socket) => {
      socket.destroy();
      resolve(String(res.statusCode));
    });
    req.once("error", reject);
    req.end();
  });
}

/**
 * The session's network rules where packets leave (browser/egress/rules.ts through proxy.ts): judged
 * after the node's policy, a CIDR against every answer of the name, on the answers it connects to.
 */
describe("egress listener with network rules", () => {
  let site: http.Server;
  let port = 0;
  let listener: EgressListener;
  const refusals: EgressRefusal[] = [];
  // Names the test resolves: one answers into 127.0.0.0/8 only, one answers a public address and a loopback one (a rebinding trick).
  const answers: Record<string, string[]> = { "fixture.test": ["127.0.0.1"], "rebind.test": ["198.51.100.7", "127.0.0.1"] };

  beforeAll(async () => {
    site = http.createServer((_q, r) => r.end("ok"));
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    port = (site.address() as AddressInfo).port;
    listener = await openEgressListener({
      policy: new EgressPolicy(parseAllowlist(["127.0.0.1/32", "fixture.test", "rebind.test"])),
      log: createLogger("silent"),
      resolve: async (host) => answers[host] ?? [],
      onRefused: (_route, refusal) => refusals.push(refusal),
    });
  });
  afterAll(async () => {
    await listener?.close();
    site?.close();
  });

  it("refuses by the route's rules only what the node allows, naming the rule; without rules the node's policy alone", async () => {
    expect(await connect(listener, `fixture.test:${port}`)).toBe("200");
    listener.route.rules = [compileLayer("workspace", { allow: [`other.test:${port}`], deny: [] })];
    expect(await connect(listener, `fixture.test:${port}`)).toBe("403");
    expect(refusals.at(-1)).toMatchObject({ reason: "blocked-by-policy", rule: { scope: "workspace", list: "allow", rule: `other.test:${port}` } });
    listener.route.rules = [compileLayer("workspace", { allow: [`fixture.test:${port}`], deny: [] })];
    expect(await connect(listener, `fixture.test:${port}`)).toBe("200");
    // An allowed name, but the node refuses private space for a name it does not list: the node wins.
    answers["private.test"] = ["10.0.0.1"];
    listener.route.rules = [compileLayer("workspace", { allow: ["private.test"], deny: [] })];
    expect(await connect(listener, "private.test:80")).toBe("403");
    expect(refusals.at(-1)?.reason).toBe("blocked-address");
  });

  it("checks a denied CIDR against every DNS answer, so a name answering into it is refused (no rebinding)", async () => {
    listener.route.rules = [compileLayer("workspace", { allow: [], deny: ["127.0.0.0/8"] })];
    expect(await connect(listener, `fixture.test:${port}`)).toBe("403");
    expect(await connect(listener, `rebind.test:${port}`)).toBe("403");
    expect(refusals.at(-1)).toMatchObject({ reason: "blocked-by-policy", rule: { list: "deny", rule: "127.0.0.0/8" } });
    // And the literal address too.
    expect(await connect(listener, `127.0.0.1:${port}`)).toBe("403");
    listener.route.rules = undefined;
    expect(await connect(listener, `127.0.0.1:${port}`)).toBe("200");
  });

  it("ends an open tunnel the new rules refuse, and keeps the ones they allow", async () => {
    const open = (authority: string) =>
      new Promise<import("node:net").Socket>((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port: listener.port, method: "CONNECT", path: authority });
        req.once("connect", (_res, socket) => resolve(socket));
        req.once("error", reject);
        req.end();
      });
    const kept = await open(`127.0.0.1:${port}`);
    const cut = await open(`fixture.test:${port}`);
    const closed = new Promise<void>((r) => cut.once("close", () => r()));
    let keptClosed = false;
    kept.once("close", () => {
      keptClosed = true;
    });
    listener.route.rules = [compileLayer("session", { allow: [], deny: ["fixture.test"] })];
    await closed;
    expect(refusals.at(-1)).toMatchObject({ reason: "blocked-by-policy", host: "fixture.test", rule: { scope: "session", rule: "fixture.test" } });
    kept.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    const answer = await new Promise<string>((r) => kept.once("data", (d: Buffer) => r(d.toString())));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(keptClosed).toBe(false);
    kept.destroy();
    listener.route.rules = undefined;
  });
});
