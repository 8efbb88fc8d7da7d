import net from "node:net";
import { domainToASCII } from "node:url";
import { normalizeAddress } from "./address.ts";

/**
 * Network rules narrower than the node's policy (policy.ts): lists of host patterns and CIDRs, each
 * with an optional port, that a session's traffic must also pass. The egress listener holds them as
 * data on its route (layers: whoever set them, a workspace or a session, is only a label here) and
 * judges every connection by them after the node's policy: a host pattern by the name asked for, a
 * CIDR by each address the name resolved to (the one connected to is one of those, so a name that
 * resolves differently the second time gains nothing). Deny beats allow: a denied CIDR holding any
 * of a name's answers refuses the name. An empty allow list allows whatever the node allows.
 *
 * Forms: `example.com`, `*.example.com` (its subdomains, not itself), `example.com:443`, `10.0.0.0/8`,
 * `192.0.2.7`, `192.0.2.0/24:8080`, `fd00::/8`, `[2001:db8::1]:443`, `[fd00::]/8:443`. Host names are
 * IDNA-normalised (UTS #46, as the browser sends them); control, format and space characters are refused.
 */

export const MAX_RULE_LENGTH = 255;

interface BaseRule {
  /** As written (normalised): what a refusal names. */
  text: string;
  port: number | undefined;
}
export type NetworkRule =
  | (BaseRule & { kind: "host"; host: string; subdomains: boolean })
  | (BaseRule & { kind: "cidr"; block: net.BlockList; family: "ipv4" | "ipv6"; address: string; bits: number });

export interface RuleLayer {
  /** Who set these rules ("workspace", "session"): named in a refusal. */
  scope: string;
  allow: NetworkRule[];
  deny: NetworkRule[];
  /** Each list's CIDRs, merged by port (compileLayer). */
  ranges: { allow: Map<number, net.BlockList>; deny: Map<number, net.BlockList> };
}

export interface RuleRefusal {
  scope: string;
  list: "allow" | "deny";
  /** The deny rule that matched, or the allow list the destination matched none of. */
  rule: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function parsePort(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  if (!/^\d{1,5}$/.test(raw)) return null;
  const port = Number(raw);
  return port >= 1 && port <= 65535 ? port : null;
}

function cidr(address: string, prefix: string | undefined, port: number | undefined): NetworkRule | string {
  const n = normalizeAddress(address);
  if (!n) return "is not an IP address";
  const max = n.family === "ipv4" ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return "has a bad prefix length";
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return `has a prefix longer than ${max}`;
  const block = new net.BlockList();
  block.addSubnet(n.address, bits, n.family);
  const shown = n.family === "ipv6" && port !== undefined ? `[${n.address}]/${bits}:${port}` : `${n.address}/${bits}${port !== undefined ? `:${port}` : ""}`;
  return { kind: "cidr", block, family: n.family, address: n.address, bits, port, text: shown };
}

/** One rule, or why it is not one (a phrase: "… is not a host pattern"). */
export function parseRule(input: string): NetworkRule | string {
  if (typeof input !== "string" || input.length === 0) return "is empty";
  if (input.length > MAX_RULE_LENGTH) return `is longer than ${MAX_RULE_LENGTH} characters`;
  // NUL, other controls, zero-width and bidirectional marks, spaces: never part of a name or address.
  if (/[\p{C}\p{Z}]/u.test(input)) return "contains control, invisible or space characters";
  let m = /^\[([0-9a-fA-F:.]+)\](?:\/(\d+))?(?::(\d+))?$/.exec(input);
  if (m) {
    const port = parsePort(m[3]);
    if (port === null) return "has a bad port";
    if (net.isIP(m[1]!) !== 6) return "is not an IPv6 address";
    return cidr(m[1]!, m[2], port);
  }
  m = /^([0-9a-fA-F.]*:[0-9a-fA-F.]*:[0-9a-fA-F:.]*)(?:\/(\d+))?$/.exec(input);
  if (m) return net.isIP(m[1]!) === 6 ? cidr(m[1]!, m[2], undefined) : "is not an IPv6 address (with a port, write [address]:port)";
  m = /^(\d{1,3}(?:\.\d{1,3}){3})(?:\/(\d+))?(?::(\d+))?$/.exec(input);
  if (m) {
    const port = parsePort(m[3]);
    if (port === null) return "has a bad port";
    if (net.isIP(m[1]!) !== 4) return "is not an IPv4 address";
    return cidr(m[1]!, m[2], port);
  }
  m = /^(\*\.)?([^:/*[\]@]+)(?::([^:]*))?$/.exec(input);
  if (!m) return "is not a host name, host pattern (*.example.com), address or CIDR, with an optional :port";
  const port = parsePort(m[3]);
  if (port === null) return "has a bad port";
  const ascii = domainToASCII(m[2]!.toLowerCase()).replace(/\.$/, "");
  if (!ascii || ascii.length > 253) return "is not a valid host name";
  const labels = ascii.split(".");
  if (!labels.every((l) => LABEL.test(l))) return "is not a valid host name";
  // A name of digits and dots only would read as an address to some resolvers but never to this parser.
  if (labels.every((l) => /^\d+$/.test(l))) return "is not a valid host name or address";
  const subdomains = m[1] !== undefined;
  const text = `${subdomains ? "*." : ""}${ascii}${port !== undefined ? `:${port}` : ""}`;
  return { kind: "host", host: ascii, subdomains, port, text };
}

/** Rules of one layer; throws {@link BadRule} naming the first that is not one. */
export function compileLayer(scope: string, lists: { allow: readonly string[]; deny: readonly string[] }): RuleLayer {
  const compile = (list: "allow" | "deny") =>
    lists[list].map((text, index) => {
      const rule = parseRule(text);
      if (typeof rule === "string") throw new BadRule(list, index, text, rule);
      return rule;
    });
  const allow = compile("allow");
  const deny = compile("deny");
  return { scope, allow, deny, ranges: { allow: rangesOf(allow), deny: rangesOf(deny) } };
}

/**
 * A list's CIDRs merged into one BlockList per port (key 0: any port), so that judging an address
 * costs a lookup or two whatever the list's length (a rule per CIDR cost ~500 µs a connection
 * with 220 rules; docs/decisions/0350).
 */
function rangesOf(rules: readonly NetworkRule[]): Map<number, net.BlockList> {
  const ranges = new Map<number, net.BlockList>();
  for (const rule of rules) {
    if (rule.kind !== "cidr") continue;
    const key = rule.port ?? 0;
    let block = ranges.get(key);
    if (!block) ranges.set(key, (block = new net.BlockList()));
    block.addSubnet(rule.address, rule.bits, rule.family);
  }
  return ranges;
}

export class BadRule extends Error {
  constructor(
    readonly list: "allow" | "deny",
    readonly index: number,
    readonly rule: string,
    readonly problem: string,
  ) {
    super(`${list}[${index}] ${problem}`);
  }
}

function hostMatches(rule: NetworkRule, host: string | null, port: number): boolean {
  if (rule.kind !== "host" || host === null || (rule.port !== undefined && rule.port !== port)) return false;
  return rule.subdomains ? host.endsWith(`.${rule.host}`) : host === rule.host;
}

type Address = { address: string; family: "ipv4" | "ipv6"; raw: string };

function inRanges(ranges: Map<number, net.BlockList>, a: Address, port: number): boolean {
  return ranges.get(0)?.check(a.address, a.family) === true || ranges.get(port)?.check(a.address, a.family) === true;
}

/** The first CIDR rule of a list holding `a` (a refusal names it; only looked for once one holds it). */
function cidrRule(rules: readonly NetworkRule[], a: Address, port: number): NetworkRule | undefined {
  return rules.find((r) => r.kind === "cidr" && (r.port === undefined || r.port === port) && r.family === a.family && r.block.check(a.address, a.family));
}

/**
 * Which of `addresses` (what `host` resolved to, already allowed by the node) the layers leave, or
 * the rule that refused the connection. A literal address as `host` is matched by CIDRs only.
 */
export function judgeByRules(layers: readonly RuleLayer[], host: string, port: number, addresses: readonly string[]): string[] | RuleRefusal {
  const name = net.isIP(host) ? null : host.toLowerCase().replace(/\.$/, "");
  let left: Address[] = [];
  for (const raw of addresses) {
    const n = normalizeAddress(raw);
    if (n) left.push({ ...n, raw });
  }
  for (const layer of layers) {
    const denied = layer.deny.find((rule) => hostMatches(rule, name, port));
    if (denied) return { scope: layer.scope, list: "deny", rule: denied.text };
    // A name with any answer in a denied range is refused outright, not merely steered to its other
    // answers: a rebinding name answers with a public and a private address at once.
    const hit = left.find((a) => inRanges(layer.ranges.deny, a, port));
    if (hit) return { scope: layer.scope, list: "deny", rule: cidrRule(layer.deny, hit, port)?.text ?? "" };
    if (layer.allow.length === 0) continue;
    const byName = layer.allow.some((rule) => hostMatches(rule, name, port));
    if (!byName) left = left.filter((a) => inRanges(layer.ranges.allow, a, port));
    if (left.length === 0) return { scope: layer.scope, list: "allow", rule: layer.allow.map((r) => r.text).join(", ") };
  }
  return left.map((a) => a.raw);
}
