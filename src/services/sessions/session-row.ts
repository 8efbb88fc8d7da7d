// A session's row as a create writes it from its input: the one place that maps the create's
// options onto the row's columns, for the create that starts at once (create-session.ts) and the
// one that waits in the admission queue (queue/enqueue.ts).
import type { Session } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { defaultIdleSeconds, type CreateSessionInput } from "./session-input.ts";
import { optionsColumn } from "./session-options.ts";

/** What differs between a started and a queued create: identity, state, node and times. */
export type RowState = Pick<Session, "id" | "workspaceId" | "status" | "nodeId" | "timeoutSeconds" | "createdAt" | "startedAt" | "expiresAt">;

export function sessionRow(ctx: ServiceContext, input: CreateSessionInput, state: RowState): Session {
  return {
    ...state,
    region: input.region,
    endReason: null,
    apiKeyId: ctx.principal?.kind === "apiKey" ? ctx.principal.keyId : null,
    endedById: null,
    profileId: input.profile_id ?? null,
    saveProfileOnRelease: input.save_profile_on_release ?? false,
    idleTimeoutSeconds: input.idle_timeout_seconds ?? defaultIdleSeconds,
    liveViewInteractive: input.live_view?.interactive ?? false,
    liveViewInstructions: input.live_view?.instructions ?? null,
    liveViewGeneration: 0,
    metadata: input.metadata ?? {},
    browser: input.browser ?? null,
    extensionIds: input.extension_ids ?? [],
    options: optionsColumn(input) as Session["options"],
    logs: input.logs ?? ctx.deps.config.logs.enabled,
    recording: input.recording ?? ctx.deps.config.recording.enabled,
    lastActivityAt: null,
    endedAt: null,
  };
}
