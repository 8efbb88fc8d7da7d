import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Logger } from "../logger.ts";

/** What the browser pool reports about itself; the pool arrives with the sessions work. */
export interface BrowserPoolReport {
  state: "ready" | "unavailable";
  capacity: number;
  inUse: number;
  warm: number;
}

/** Long-lived dependencies built once by the composition root (src/app.ts). */
export interface AppDeps {
  config: Config;
  db: Database;
  log: Logger;
  /** Absent until a browser pool runs in this process. */
  browserPool?: { report(): BrowserPoolReport };
}

/** Everything a service function needs for one call, whichever transport made it. */
export interface ServiceContext {
  deps: AppDeps;
  requestId: string;
  log: Logger;
}
