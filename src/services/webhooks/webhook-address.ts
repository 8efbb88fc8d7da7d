import net from "node:net";
import { EgressPolicy, parseAllowlist } from "../../browser/egress/policy.ts";
import { defaultResolve } from "../../browser/egress/shared.ts";
import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";

/**
 * Which addresses webhook deliveries may reach: the browsers' blocked ranges, opened by
 * VESSEL_WEBHOOK_ALLOW alone. A separate list because the two trust different people: the egress
 * list opens internal sites to every session's pages, this one opens them to every workspace's
 * receivers; a developer's local receiver should not need sessions to reach loopback too.
 */
export function webhookPolicy(config: Pick<Config, "webhooks">): EgressPolicy {
  return new EgressPolicy(parseAllowlist(config.webhooks.allow));
}

const bare = (host: string) => host.replace(/^\[|\]$/g, "");

/** How long creation waits for a name to resolve; a slow resolver must not hold the request. */
const RESOLVE_TIMEOUT_MS = 3000;

/**
 * Refuses (422 `webhook-address-refused`) a URL whose deliveries the policy would refuse, so the
 * creator learns it now and how to allow it, not from a delivery log later. The same rule as
 * webhook-sender.ts: an address literal is judged as is; a name the list allows passes unless it
 * reaches this node; any other name is resolved and refused when none of its addresses is allowed.
 * A name that does not resolve (yet) is accepted: that is not the policy's refusal, and deliveries
 * judge it again each time. The detail names the host, never what it resolved to.
 */
export async function checkWebhookAddress(policy: EgressPolicy, target: string, resolve: (host: string) => Promise<string[]> = defaultResolve): Promise<void> {
  const url = new URL(target);
  const host = bare(url.hostname);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const byName = !net.isIP(host) && policy.hostAllowed(host);
  const allowed = (address: string) => (byName ? !policy.reachesNode(address, port) : policy.destinationAllowed(address, port));
  if (net.isIP(host)) {
    if (!allowed(host)) throw refused(host);
    return;
  }
  const addresses = await resolveWithin(resolve, host);
  if (addresses.length > 0 && !addresses.some(allowed)) throw refused(host);
}

async function resolveWithin(resolve: (host: string) => Promise<string[]>, host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((settle) => {
    timer = setTimeout(() => settle([]), RESOLVE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([resolve(host).catch(() => []), late]);
  } finally {
    clearTimeout(timer);
  }
}

function refused(host: string): AppError {
  return new AppError(
    "webhook-address-refused",
    `Deliveries to ${host} would be refused: it is (or resolves only to) a loopback, private or other non-public address, or this server. ` +
      "Set VESSEL_WEBHOOK_ALLOW on the server to allow it (for a receiver on the same machine: VESSEL_WEBHOOK_ALLOW=127.0.0.1,localhost).",
    { setting: "VESSEL_WEBHOOK_ALLOW", field: "url" },
  );
}
