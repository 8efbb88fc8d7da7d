import { describe, expect, it } from "vitest";
import type { Session } from "../../src/generated/prisma/client.ts";
import { fromStoredView, storedSessionId, toStoredView } from "../../src/services/sessions/session-view.ts";

const session = {
  id: "ses_01JABCDEFGHJKMNPQRSTVWXYZ0",
  workspaceId: "ws1",
  status: "RUNNING",
  region: "us-east1",
  endReason: null,
  nodeId: "n1",
  apiKeyId: "k1",
  endedById: null,
  profileId: null,
  saveProfileOnRelease: false,
  timeoutSeconds: 600,
  idleTimeoutSeconds: 300,
  liveViewInteractive: false,
  liveViewInstructions: null,
  liveViewGeneration: 0,
  logs: true,
  recording: false,
  metadata: { team: "qa" },
  browser: { locale: "fr-CH" },
  extensionIds: [],
  options: {},
  createdAt: new Date("2026-11-24T10:00:00.000Z"),
  startedAt: new Date("2026-11-24T10:00:00.100Z"),
  expiresAt: new Date("2026-11-24T10:10:00.000Z"),
  lastActivityAt: null,
  endedAt: null,
} as Session;

describe("the stored answer of an idempotent create", () => {
  it("is a transport-neutral view that comes back as the same domain object, dates included", () => {
    const view = { session, connectUrl: "ws://h/cdp?token=t", liveViewUrl: "http://h/?token=l" };
    const stored = JSON.parse(JSON.stringify(toStoredView(view))) as unknown;
    expect(fromStoredView(stored)).toEqual(view);
    expect(fromStoredView(stored)!.session.expiresAt).toBeInstanceOf(Date);
    expect(storedSessionId(stored)).toBe(session.id);
  });

  it("tells an answer stored by an older version (the REST body) apart, and still names its session", () => {
    const restBody = { id: session.id, status: "RUNNING", created_at: "2026-11-24T10:00:00.000Z", connect_url: null };
    expect(fromStoredView(restBody)).toBeNull();
    expect(storedSessionId(restBody)).toBe(session.id);
    expect(fromStoredView(null)).toBeNull();
    expect(fromStoredView({ view: 2, session: {} })).toBeNull();
  });
});
