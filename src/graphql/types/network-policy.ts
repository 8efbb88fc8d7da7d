import type { NetworkPolicyView } from "../../services/network-policy/network-policy.ts";
import { operations } from "../../services/operations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";

const WORKSPACE = "The workspace (slug) to act in: required for dashboard users; an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

const NetworkPolicyRef = builder.objectRef<NetworkPolicyView>("NetworkPolicy").implement({
  description:
    "The workspace's network rules: they narrow what the node allows its sessions to reach (deny beats allow; an empty allow list allows what the node allows).",
  fields: (t) => ({
    allow: t.exposeStringList("allow", { description: "Host names, `*.` patterns, addresses and CIDRs, each with an optional `:port`." }),
    deny: t.exposeStringList("deny"),
    updatedAt: t.field({ type: "DateTime", nullable: true, resolve: (p) => p.updatedAt }),
  }),
});

builder.queryField(operations.networkPolicy.id, (t) =>
  t.field({
    extensions: { operation: operations.networkPolicy },
    type: NetworkPolicyRef,
    args: { workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.networkPolicy, (svc, run) => run(svc), opt(args.workspace)),
  }),
);

builder.mutationField(operations.setNetworkPolicy.id, (t) =>
  t.field({
    extensions: { operation: operations.setNetworkPolicy },
    type: NetworkPolicyRef,
    description:
      "Replaces the workspace's network rules (empty lists remove them); running sessions take them within seconds. A bad rule → INVALID_NETWORK_RULE.",
    args: {
      workspace: t.arg.string({ description: WORKSPACE }),
      allow: t.arg.stringList({ required: true }),
      deny: t.arg.stringList({ required: true }),
    },
    resolve: (_r, args, ctx) => audited(ctx, operations.setNetworkPolicy, (svc, run) => run(svc, { allow: args.allow, deny: args.deny }), opt(args.workspace)),
  }),
);
