import type { Session } from "../../generated/prisma/client.ts";
import { creatorsOf, currentPageOf, profileLabelsOf, type SessionCreator } from "../../services/sessions/session-origins.ts";
import { builder, type GraphQLContext } from "../builder.ts";
import { SessionType } from "./session.ts";

/**
 * A list's rows ask one by one; the lookups run once per list: the rows asking in the same turn of
 * the event loop are answered by one query (per GraphQL request, per lookup).
 */
function batched<T>(lookup: (ctx: GraphQLContext, sessions: Session[]) => Promise<Map<string, T>>) {
  const pending = new WeakMap<GraphQLContext, { sessions: Session[]; result: Promise<Map<string, T>> }>();
  return (ctx: GraphQLContext, session: Session): Promise<T | undefined> => {
    let batch = pending.get(ctx);
    if (!batch) {
      const sessions: Session[] = [];
      const result = new Promise<void>((r) => setImmediate(r)).then(() => {
        pending.delete(ctx);
        return lookup(ctx, sessions);
      });
      batch = { sessions, result };
      pending.set(ctx, batch);
    }
    batch.sessions.push(session);
    return batch.result.then((m) => m.get(session.id));
  };
}

const creator = batched((ctx, sessions) => creatorsOf(ctx.services, sessions));
const profileLabel = batched(async (ctx, sessions) => {
  const labels = await profileLabelsOf(ctx.services, sessions);
  return new Map(sessions.flatMap((s) => (s.profileId && labels.has(s.profileId) ? [[s.id, labels.get(s.profileId)!] as const] : [])));
});

const SessionCreatorType = builder.objectRef<SessionCreator>("SessionCreator").implement({
  description: "Who started a session: an API key (by prefix and label) or a dashboard user (by address).",
  fields: (t) => ({
    kind: t.string({ description: "api_key or user.", resolve: (c) => c.kind }),
    keyPrefix: t.string({ nullable: true, resolve: (c) => (c.kind === "api_key" ? c.keyPrefix : null) }),
    keyLabel: t.string({ nullable: true, resolve: (c) => (c.kind === "api_key" ? c.keyLabel : null) }),
    email: t.string({ nullable: true, resolve: (c) => (c.kind === "user" ? c.email : null) }),
  }),
});

const OpenPageType = builder.objectRef<{ title: string; url: string }>("OpenPage").implement({
  description: "A tab of a running session: its title and address.",
  fields: (t) => ({ title: t.exposeString("title"), url: t.exposeString("url") }),
});

builder.objectFields(SessionType, (t) => ({
  createdBy: t.field({
    type: SessionCreatorType,
    nullable: true,
    description: "Who started the session (null when not known: a deleted key, an older session).",
    resolve: (v, _a, ctx) => creator(ctx, v.session).then((c) => c ?? null),
  }),
  profileLabel: t.string({
    nullable: true,
    description: "The label of the profile the session started from (null: none, or deleted since).",
    resolve: (v, _a, ctx) => profileLabel(ctx, v.session).then((l) => l ?? null),
  }),
  currentPage: t.field({
    type: OpenPageType,
    nullable: true,
    description:
      "While the session runs (on the node that answers): its active tab's title and address (the tab last brought to the front or driven, as the live view and the recording show; else the first).",
    resolve: (v, _a, ctx) => (v.session.status === "RUNNING" ? currentPageOf(ctx.services, v.session) : null),
  }),
}));
