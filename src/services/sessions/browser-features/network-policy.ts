import type { RuleLayer } from "../../../browser/egress/rules.ts";
import { policyLayer } from "../../network-policy/network-policy-input.ts";
import { sessionLayers, workspacePolicy } from "../../network-policy/network-policy.ts";
import { defineFeature } from "./feature.ts";

/**
 * `network_policy`: the workspace's network rules, then the session's own, on the browser's egress
 * route (only in this process's memory, for as long as the browser serves the session; a lease given
 * back unused forgets them, browser/pool/lease.ts). Every create takes the workspace's, read before a
 * browser is taken; a change later reaches the running session through network-policy.ts.
 */
export const networkPolicy = defineFeature<RuleLayer[]>({
  name: "network policy",
  reads: ["network_policy"],
  phase: "leased",
  dirtiesSpare: false,
  wanted: () => true,
  check: async ({ ctx, input, workspaceId }) => {
    // A bad rule of the session's own → 422 naming it, before anything is taken.
    if (input.network_policy) policyLayer("session", input.network_policy);
    return sessionLayers(await workspacePolicy(ctx, workspaceId), input.network_policy ?? null);
  },
  apply: ({ lease }, layers) => {
    if (lease.egress && layers.length > 0) lease.egress.rules = layers;
  },
});
