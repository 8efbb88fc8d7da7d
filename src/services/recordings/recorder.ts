import type { BrowserLease } from "../../browser/pool-types.ts";
import type { AppDeps } from "../../kernel/context.ts";
import type { Session } from "../../generated/prisma/client.ts";

/** Starts recording a session's screen as it starts; stops through the runtime's finisher as it ends. */
export function startRecording(_deps: AppDeps, _session: Session, _lease: BrowserLease): void {}
