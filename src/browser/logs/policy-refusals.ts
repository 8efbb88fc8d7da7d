import type { EgressRefusal } from "../egress/shared.ts";
import type { RuleRefusal } from "../egress/rules.ts";

/**
 * Connections the egress listener refused by a session's network rules, remembered briefly so that
 * the request Chromium reports failed (as a SOCKS error, all it knows) is logged as
 * `blocked-by-policy` with the rule. Chromium may fail several requests on one refused connection
 * attempt (requests to one host share its connect jobs), so a refusal is not used up by one; one
 * that no request claimed (a WebSocket, which has no request events) is logged on its own.
 */

/** How long a refusal explains failures of its host and port (a SOCKS failure follows within milliseconds). */
const REMEMBER_MS = 5_000;
/** A refusal no failed request claimed after this long is logged by itself. */
const UNCLAIMED_MS = 1_000;
const MAX_REMEMBERED = 256;

interface Remembered {
  rule: RuleRefusal;
  at: number;
  claimed: boolean;
}

export interface PolicyFailure {
  failure: "blocked-by-policy";
  rule: string;
  rule_list: "allow" | "deny";
  policy: string;
}

const defaultPorts: Record<string, number> = { "http:": 80, "ws:": 80, "https:": 443, "wss:": 443 };

/** `host:port` of a URL as the listener sees it (brackets off an IPv6 host), or null. */
export function destinationOf(url: string): string | null {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : defaultPorts[u.protocol];
    return port ? `${u.hostname.replace(/^\[|\]$/g, "").toLowerCase()}:${port}` : null;
  } catch {
    return null;
  }
}

export function policyFailure(rule: RuleRefusal): PolicyFailure {
  return { failure: "blocked-by-policy", rule: rule.rule, rule_list: rule.list, policy: rule.scope };
}

export class PolicyRefusals {
  readonly #recent = new Map<string, Remembered>();
  /** WebSockets the pages opened lately, by destination: what an unclaimed refusal's entry names. */
  readonly #sockets = new Map<string, string>();

  constructor(private readonly unclaimed: (destination: { host: string; port: number; url: string | null }, failure: PolicyFailure) => void) {}

  refused(refusal: EgressRefusal): void {
    if (refusal.reason !== "blocked-by-policy" || !refusal.rule) return;
    const key = `${refusal.host.toLowerCase()}:${refusal.port}`;
    if (this.#recent.size >= MAX_REMEMBERED) this.#recent.delete(this.#recent.keys().next().value!);
    const remembered: Remembered = { rule: refusal.rule, at: Date.now(), claimed: false };
    this.#recent.delete(key);
    this.#recent.set(key, remembered);
    const timer = setTimeout(() => {
      if (remembered.claimed) return;
      remembered.claimed = true;
      this.unclaimed({ host: refusal.host, port: refusal.port, url: this.#sockets.get(key) ?? null }, policyFailure(remembered.rule));
    }, UNCLAIMED_MS);
    timer.unref();
  }

  webSocketCreated(url: string): void {
    const key = destinationOf(url);
    if (!key) return;
    if (this.#sockets.size >= MAX_REMEMBERED) this.#sockets.delete(this.#sockets.keys().next().value!);
    this.#sockets.set(key, url);
  }

  /** Why a request to `url` that failed with `errorText` failed, when the rules refused its connection. */
  explain(url: string, errorText: string): PolicyFailure | null {
    if (!/ERR_SOCKS_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED|ERR_EMPTY_RESPONSE/.test(errorText)) return null;
    const key = destinationOf(url);
    const remembered = key ? this.#recent.get(key) : undefined;
    if (!remembered || Date.now() - remembered.at > REMEMBER_MS) return null;
    remembered.claimed = true;
    return policyFailure(remembered.rule);
  }
}
