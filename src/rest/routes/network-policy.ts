import { z } from "zod";
import type { NetworkPolicyView } from "../../services/network-policy/network-policy.ts";
import { NetworkPolicyInput } from "../../services/network-policy/network-policy-input.ts";
import { operations } from "../../services/operations.ts";
import { defineRoute } from "../define-route.ts";

const NetworkPolicyDto = z
  .object({
    allow: z.array(z.string()).describe("Allowed destinations (normalised: lower-case ASCII names, canonical addresses). Empty: whatever the node allows."),
    deny: z.array(z.string()).describe("Refused destinations; deny beats allow."),
    updated_at: z.string().nullable().describe("When the rules were last set; null when the workspace has none."),
  })
  .meta({ id: "NetworkPolicy" });

const toDto = (p: NetworkPolicyView): z.output<typeof NetworkPolicyDto> => ({
  allow: p.allow,
  deny: p.deny,
  updated_at: p.updatedAt ? p.updatedAt.toISOString() : null,
});

/** Dashboard users name the workspace; API keys act in their own. */
const Ws = z.object({ workspace: z.string().min(1).max(64).optional().describe("Dashboard users name the workspace (slug); API keys act in their own.") });
const tags = ["Workspace"];

export const networkPolicyRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/workspace/network-policy",
    operation: operations.networkPolicy,
    summary: "Get the workspace's network rules",
    description: "What the workspace's sessions may reach, within what the node allows (its `VESSEL_EGRESS_ALLOW` and the blocked ranges).",
    tags,
    auth: "apiKeyOrUser",
    input: { query: Ws },
    status: 200,
    response: NetworkPolicyDto,
    problems: ["forbidden", "not-found"],
    handler: async (ctx, _input, _http, run) => toDto(await run(ctx)),
  }),
  defineRoute({
    method: "put",
    path: "/v1/workspace/network-policy",
    operation: operations.setNetworkPolicy,
    summary: "Set the workspace's network rules",
    description:
      "Replaces them (`{allow: [], deny: []}` removes them). They only narrow the node's policy; deny beats allow; an empty allow list " +
      "allows whatever the node allows. Running sessions of the workspace take them within seconds. A refused connection shows in the " +
      'session\'s network log with `failure: "blocked-by-policy"` and the `rule`. At most 100 rules per list, 255 characters each.',
    tags,
    auth: "apiKeyOrUser",
    input: { query: Ws, body: NetworkPolicyInput },
    status: 200,
    response: NetworkPolicyDto,
    problems: ["forbidden", "not-found", "invalid-network-rule"],
    bodyLimit: "64kb",
    handler: async (ctx, { body }, _http, run) => toDto(await run(ctx, body)),
  }),
];
