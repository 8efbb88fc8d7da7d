import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EgressPolicy } from "../../src/browser/egress/policy.ts";
import { openEgressListener } from "../../src/browser/egress/proxy.ts";
import type { EgressListener, EgressRefusal } from "../../src/browser/egress/shared.ts";
import { sendAttempt } from "../../src/services/webhooks/webhook-sender.ts";
import { createLogger } from "../../src/logger.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

/**
 * The node's own listeners are never a destination, whatever the egress allow-list says
 * (src/browser/egress/own-listeners.ts): a real app listening on 0.0.0.0, an allow-list that opens the
 * loopback addresses it answers on (so the blocked ranges are out of the way), and the two paths
 * out of the node, the browsers' egress listener and the webhook sender. A server of the test's own
 * on the same addresses is reached, so each refusal is the node's and not the address's.
 */

const log = createLogger("silent");

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

/** A plain-HTTP request through the egress listener: the status, or "dropped" when it was refused unanswered. */
function getThrough(proxyPort: number, url: string): Promise<number | "dropped"> {
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port: proxyPort, path: url, headers: { host: new URL(url).host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve("dropped"));
    req.setTimeout(10_000, () => req.destroy());
    req.end();
  });
}

describe("the node's own listeners", () => {
  let t: TestApp;
  let nodePort: number;
  const site = http.createServer((_req, res) => res.end("site"));
  let sitePort: number;
  let proxy: EgressListener;
  const refusals: EgressRefusal[] = [];
  // Opens 127.0.0.2 and the name "localhost": without the node's own rule, both would reach it.
  const policy = new EgressPolicy({ cidrs: ["127.0.0.2/32", "127.0.0.1/32"], hosts: ["localhost", "node.test"] });
  const resolve = async (host: string) => (host === "node.test" || host === "localhost" ? ["127.0.0.1"] : []);

  beforeAll(async () => {
    t = await startTestApp({ startBrowsers: false, env: { VESSEL_HOST: "0.0.0.0" } });
    nodePort = Number(new URL(t.url).port);
    sitePort = await listen(site, "127.0.0.2");
    proxy = await openEgressListener({ policy, log, resolve, onRefused: (_route, r) => refusals.push(r) });
  });
  afterAll(async () => {
    await proxy?.close();
    site.close();
    await t?.stop();
  });

  it("the node answers on 127.0.0.2 (it listens on 0.0.0.0): what the rule must keep browsers and webhooks from", async () => {
    expect((await fetch(`http://127.0.0.2:${nodePort}/healthz`)).status).toBe(200);
  });

  it("browsers: the egress listener refuses the node on any local address and by an allowed name, and reaches a site beside it", async () => {
    for (const url of [
      `http://127.0.0.2:${nodePort}/healthz`,
      `http://127.0.0.1:${nodePort}/healthz`,
      `http://node.test:${nodePort}/healthz`,
      `http://127.0.0.1:${proxy.port}/`,
    ]) {
      refusals.length = 0;
      expect(await getThrough(proxy.port, url), url).toBe("dropped");
      expect(
        refusals.map((r) => r.reason),
        url,
      ).toEqual(["blocked-address"]);
    }
    expect(await getThrough(proxy.port, `http://127.0.0.2:${sitePort}/`)).toBe(200);
  });

  it("webhooks: the sender refuses the node by address and by an allowed name, and delivers to a site beside it", async () => {
    const send = (url: string) => sendAttempt(url, {}, "{}", { policy, timeoutMs: 10_000, resolve });
    for (const url of [`http://127.0.0.2:${nodePort}/v1/health`, `http://localhost:${nodePort}/`, `http://[::ffff:127.0.0.2]:${nodePort}/`]) {
      expect(await send(url), url).toMatchObject({ kind: "refused", reason: expect.stringMatching(/^blocked-address/) });
    }
    expect(await send(`http://127.0.0.2:${sitePort}/`)).toEqual({ kind: "answered", status: 200 });
  });

  it("forgets a listener once it closes", async () => {
    const other = http.createServer((_req, res) => res.end("gone soon"));
    const port = await listen(other, "127.0.0.2");
    const { ownServer } = await import("../../src/browser/egress/own-listeners.ts");
    ownServer(other);
    expect(policy.destinationAllowed("127.0.0.2", port)).toBe(false);
    await new Promise((r) => other.close(r));
    expect(policy.destinationAllowed("127.0.0.2", port)).toBe(true);
  });
});
