import type { BrowserLease } from "../../browser/pool/types.ts";
import type { AppDeps } from "../../kernel/context.ts";
import type { Session } from "../../generated/prisma/client.ts";

/**
 * Starts capturing a session's logs on its browser, as it starts (before its create is answered, so
 * no client command can come first). Stops through the runtime's finisher as the session ends.
 */
export function startSessionLogs(deps: AppDeps, session: Session, lease: BrowserLease): void {
  deps.sessionLogs.start(session, lease);
}
