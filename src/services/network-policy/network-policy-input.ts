import { z } from "zod";
import { AppError } from "../../errors.ts";
import { BadRule, compileLayer, MAX_RULE_LENGTH, type RuleLayer } from "../../browser/egress/rules.ts";

// The shape of a network policy, the same for a workspace (PUT /v1/workspace/network-policy) and a
// session's create (`network_policy`): the transports validate with it, the egress listener enforces it.

/** Rules per list: every connection of a session is judged by each, so they stay few. */
export const MAX_RULES = 100;

const Rule = z
  .string({ error: "must be a string" })
  // Longer than a rule may be, so that the rule's own check (422, naming it) says why; this only bounds the body.
  .max(4 * MAX_RULE_LENGTH, `must be at most ${MAX_RULE_LENGTH} characters`);
const RuleList = (what: string) => z.array(Rule).max(MAX_RULES, `at most ${MAX_RULES} rules`).default([]).describe(what);

export const NetworkPolicyInput = z
  .strictObject({
    allow: RuleList(
      "Destinations allowed, of those the node allows: host names (`example.com`), their subdomains (`*.example.com`), IP addresses " +
        "or CIDRs (`10.1.0.0/16`), each with an optional `:port` (`[2001:db8::1]:443` for IPv6). Empty: whatever the node allows.",
    ),
    deny: RuleList("Destinations refused, in the same forms; deny beats allow. A CIDR is checked against the addresses a name resolves to."),
  })
  .describe("Network rules that narrow the node's egress policy; they can never widen it.");
export type NetworkPolicyInput = z.output<typeof NetworkPolicyInput>;

/** A stored or given policy as the egress listener's layer; a rule that is none → 422 `invalid-network-rule` naming it. */
export function policyLayer(scope: "workspace" | "session", policy: NetworkPolicyInput, field = "network_policy"): RuleLayer {
  try {
    return compileLayer(scope, policy);
  } catch (err) {
    if (!(err instanceof BadRule)) throw err;
    // The rule is echoed back only as far as it is printable (it may hold a NUL or a bidirectional mark).
    const shown = err.rule.slice(0, MAX_RULE_LENGTH).replace(/[\p{C}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);
    throw new AppError("invalid-network-rule", `${field}.${err.list}[${err.index}] "${shown}" ${err.problem}.`, {
      rule: shown,
      list: err.list,
      index: err.index,
    });
  }
}

/** What the database holds (jsonb), read back leniently: anything else than a policy counts as none. */
export function storedPolicy(value: unknown): NetworkPolicyInput | null {
  if (!value || typeof value !== "object") return null;
  const { updated_at: _at, ...rules } = value as Record<string, unknown>;
  const parsed = NetworkPolicyInput.safeParse(rules);
  return parsed.success && (parsed.data.allow.length > 0 || parsed.data.deny.length > 0) ? parsed.data : null;
}
