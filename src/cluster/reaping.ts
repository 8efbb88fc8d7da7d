// What a node does about sessions other nodes ended, and about nodes that stopped answering.
import { closeCodeForEnd } from "../browser/close-codes.ts";
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";
import { endedAmong, liveSessionsOfNode, sessionsOfDeadNodes } from "../services/nodes/nodes.ts";
import { endSession } from "../services/sessions/sessions.ts";

/** Closes each browser here whose session the database says has ended (a missed call costs one heartbeat). */
export async function closeBrowsersOfEndedSessions(deps: AppDeps, log: Logger): Promise<void> {
  const ended = await endedAmong(deps.db.prisma, deps.runtime.ids());
  for (const { id, reason } of ended) {
    log.info({ sessionId: id }, "closing a browser whose session another node ended");
    void deps.runtime.teardown(id, undefined, closeCodeForEnd(reason)).catch(() => {});
  }
}

/** Ends the live sessions of nodes silent past the timeout, each exactly once across peers; how many this node ended. */
export async function endSessionsOfDeadNodes(deps: AppDeps, log: Logger, timeoutSeconds: number): Promise<number> {
  const orphans = await sessionsOfDeadNodes(deps.db.prisma, deps.nodeId, timeoutSeconds);
  let ended = 0;
  for (const { id, nodeId } of orphans) {
    // Conditional on the session still being live: when several peers notice, one of them ends it.
    if (await endSession(deps, id, { status: "FAILED", reason: "NODE_SHUTDOWN" })) {
      ended++;
      log.warn({ sessionId: id, deadNode: nodeId }, "ended a session of a node that stopped answering");
    }
  }
  return ended;
}

/** After a fence: the live sessions the database gives this node that no longer run here end with node_shutdown. */
export async function endSessionsLostHere(deps: AppDeps, log: Logger): Promise<number> {
  const running = new Set(deps.runtime.ids());
  const lost = (await liveSessionsOfNode(deps.db.prisma, deps.nodeId)).filter((id) => !running.has(id));
  let ended = 0;
  for (const id of lost) if (await endSession(deps, id, { status: "FAILED", reason: "NODE_SHUTDOWN" })) ended++;
  if (ended > 0) log.warn({ sessions: ended }, "ended the sessions whose browsers the fence closed");
  return ended;
}
