import { ulid } from "ulid";
import type { Session } from "../../src/generated/prisma/client.ts";

/**
 * A RUNNING session row as the create statement writes it, for tests and benches that drive the
 * session statements directly: one builder, so a new column is added here once.
 */
export function sessionRow(workspaceId: string, over: Partial<Session> = {}, now = new Date()): Session {
  return {
    id: `ses_${ulid()}`,
    workspaceId,
    status: "RUNNING",
    region: "us-east1",
    endReason: null,
    nodeId: null,
    apiKeyId: null,
    endedById: null,
    profileId: null,
    saveProfileOnRelease: false,
    timeoutSeconds: 1800,
    idleTimeoutSeconds: 300,
    liveViewInteractive: false,
    liveViewInstructions: null,
    liveViewGeneration: 0,
    logs: false,
    recording: false,
    metadata: {},
    browser: null,
    extensionIds: [],
    options: {},
    createdAt: now,
    startedAt: now,
    expiresAt: new Date(now.getTime() + 1_800_000),
    lastActivityAt: null,
    endedAt: null,
    ...over,
  };
}
