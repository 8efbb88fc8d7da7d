import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import type { EgressPolicy } from "../../browser/egress/policy.ts";
import { defaultResolve } from "../../browser/egress/shared.ts";

/**
 * One attempt of a delivery: a POST of the body with its signed headers, judged by the same egress
 * policy as the browsers. The policy is applied to the address actually connected to: the name is
 * resolved here, the addresses checked, and the socket connects to the checked address (a custom
 * `lookup`), so a name answering differently the second time (DNS rebinding) gains nothing; the
 * socket's peer is checked once more on connect. Redirects are not followed (a 3xx is a failure).
 * A refusal's reason (shown to the tenant in the delivery log) names the host, never the addresses it
 * resolved to: those would map the deployment's internal DNS for anyone who can create a webhook.
 * They are kept in `addresses`, for the server log.
 */

export type AttemptOutcome =
  | { kind: "answered"; status: number }
  | { kind: "refused"; reason: string; addresses?: string[] }
  | { kind: "failed"; error: string };

export interface SendOptions {
  policy: EgressPolicy;
  timeoutMs: number;
  /** All addresses of a name (tests may answer with what they need). */
  resolve?: (host: string) => Promise<string[]>;
}

class Refusal extends Error {
  constructor(
    message: string,
    readonly addresses?: string[],
  ) {
    super(message);
  }
}

const bare = (host: string) => host.replace(/^\[|\]$/g, "");

export function sendAttempt(target: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptOutcome> {
  const url = new URL(target);
  const host = bare(url.hostname);
  const byName = !net.isIP(host) && options.policy.hostAllowed(host);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  // Never this node itself, whatever the allow-list says (its own listeners: browser/egress/own-listeners.ts).
  const allowed = (address: string, at: number) => (byName ? !options.policy.reachesNode(address, at) : options.policy.destinationAllowed(address, at));
  if (net.isIP(host) && !allowed(host, port)) {
    return Promise.resolve({ kind: "refused", reason: `blocked-address: ${host} is not allowed by the egress policy` });
  }
  const resolve = options.resolve ?? defaultResolve;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const address = addresses.find((a) => allowed(a, port));
        if (!address) {
          const refusal =
            addresses.length === 0
              ? new Refusal("unresolvable")
              : new Refusal(`blocked-address: ${hostname} resolves only to addresses the egress policy does not allow`, addresses);
          callback(refusal, "", 0);
          return;
        }
        const family = net.isIP(address);
        if (lookupOptions.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      () => callback(new Refusal("unresolvable"), "", 0),
    );
  };
  const transport = url.protocol === "https:" ? https : http;
  return new Promise<AttemptOutcome>((settle) => {
    let done = false;
    const finish = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      settle(outcome);
    };
    const req = transport.request(url, {
      method: "POST",
      agent: false,
      lookup,
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "Vessel-Webhooks/1" },
    });
    const timer = setTimeout(() => finish({ kind: "failed", error: `no answer within ${options.timeoutMs / 1000} s` }), options.timeoutMs);
    req.on("socket", (socket) => {
      socket.once("connect", () => {
        const peer = socket.remoteAddress ?? "";
        if (!allowed(peer, socket.remotePort ?? port))
          finish({ kind: "refused", reason: `blocked-address: ${host} led to an address the egress policy does not allow`, addresses: [peer] });
      });
    });
    req.on("response", (res) => {
      finish({ kind: "answered", status: res.statusCode ?? 0 });
      res.destroy();
    });
    req.on("error", (err) => {
      if (err instanceof Refusal) finish({ kind: "refused", reason: err.message, ...(err.addresses ? { addresses: err.addresses } : {}) });
      else finish({ kind: "failed", error: err.message.slice(0, 300) });
    });
    req.end(body);
  });
}
