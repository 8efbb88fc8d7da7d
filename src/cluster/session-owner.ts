// The node that runs a session's browser follows what other nodes record: a release or keepalive
// made elsewhere reaches it by an internal call (internal-api.ts answers it), and a profile is
// captured where the browser runs. Best effort for the first two: each heartbeat closes any browser
// whose session the database says has ended (reaping.ts), so a lost call costs at most one heartbeat.
import { parseProfileDocument, type ProfileDocument } from "../browser/profiles/format.ts";
import type { AppDeps } from "../kernel/context.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { nodeOfSession } from "../services/nodes/nodes.ts";
import type { InternalAuth } from "../peers/internal-auth.ts";
import type { PayloadSeal } from "../peers/payload-seal.ts";
import { callPeer, problemFromPeer } from "../peers/peer-calls.ts";

const INTERNAL_CALL_TIMEOUT_MS = 5_000;
/** A capture reads every cookie and storage area of the browser over there. */
const CAPTURE_TIMEOUT_MS = 60_000;

/** What calls to a session's node need of the node they start on (cluster.ts). */
export interface OwnerSite {
  multiNode: boolean;
  deps: AppDeps;
  log: Logger;
  auth: InternalAuth;
  seal: PayloadSeal;
  nodeTimeoutSeconds: number;
}

const sessionPath = (sessionId: string, what: string) => `/internal/v1/sessions/${encodeURIComponent(sessionId)}/${what}`;

/** Tells the node running the session (if another, alive one) that it ended or saw activity. Never throws. */
export async function tellOwner(site: OwnerSite, sessionId: string, what: "end" | "touch", payload: Record<string, unknown>): Promise<void> {
  if (!site.multiNode || site.deps.runtime.ids().includes(sessionId)) return;
  try {
    const node = await nodeOfSession(site.deps.db.prisma, sessionId, site.nodeTimeoutSeconds);
    if (!node || node.id === site.deps.nodeId || !node.alive) return;
    await callPeer(site.auth, node, sessionPath(sessionId, what), payload, INTERNAL_CALL_TIMEOUT_MS);
  } catch (err) {
    site.log.debug({ err: (err as Error).message, sessionId, what }, "could not tell a session's node");
  }
}

/** What a session's browser on another node holds now (sealed over the wire, wiped once parsed). */
export async function captureOnOwner(
  site: OwnerSite,
  sessionId: string,
  workspaceId: string,
  baseProfileId: string | null,
): Promise<{ document: ProfileDocument }> {
  const node = site.multiNode ? await nodeOfSession(site.deps.db.prisma, sessionId, site.nodeTimeoutSeconds) : null;
  if (!node || node.id === site.deps.nodeId || !node.alive) {
    throw new AppError("conflict", "The session's browser is not running (it may be ending).");
  }
  const answer = (await callPeer(site.auth, node, sessionPath(sessionId, "capture"), { workspaceId, baseProfileId }, CAPTURE_TIMEOUT_MS).catch(() => {
    throw new AppError("conflict", "The node running the session could not be reached; retry shortly.");
  })) as { ok: boolean; sealed?: string; problem?: Record<string, unknown> };
  if (!answer.ok || !answer.sealed) throw problemFromPeer(answer.problem);
  const plaintext = site.seal.open(`capture:${sessionId}`, answer.sealed);
  try {
    return { document: parseProfileDocument(JSON.parse(plaintext.toString("utf8"))) };
  } finally {
    plaintext.fill(0);
  }
}
