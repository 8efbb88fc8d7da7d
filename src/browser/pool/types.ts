import type { Logger } from "../../logger.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";
import type { DownloadGuard, DownloadNotice } from "../downloads/download-guard.ts";
import type { SessionLogCapture } from "../logs/capture.ts";
import { type EgressOptions, type EgressRoute } from "../egress/shared.ts";
import { type Isolation } from "../jail/jail.ts";
import type { RelayHost } from "../cdp/relay/host.ts";
import type { BrowserScheduling } from "../launch/scheduling.ts";
import type { IdleWait } from "./cpu-idle.ts";

// What the browser pool hands out and how it is configured (pool.ts runs it).

export interface BrowserLease {
  /** The browser's id (its folder under dataRoot). */
  id: string;
  sessionId: string;
  /** The browser's pipe: every user (CDP clients, the live view, profiles) opens a channel on it. */
  cdp: CdpPipe;
  pid: number;
  /** Resolves when the browser's main process exits (release, crash, kill). */
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** The session's own folder for downloads (uploads may come from it too). */
  downloadsDir: string;
  /**
   * Files uploaded into the session (POST /v1/sessions/{id}/files), the other folder uploads may come
   * from. Written by this process only: a jailed browser sees it read-only (browser/jail/jail.ts).
   */
  uploadsDir: string;
  /** Where the browser's traffic goes (its egress listener's route), when the egress policy is on. */
  egress?: EgressRoute;
  /** The session's downloads, kept in `downloadsDir` and under the cap, when the policy is on. */
  downloads?: DownloadGuard;
  /** The session log capture opened with the browser (BrowserPoolOptions.logCapture), entries dropped until a session takes it. */
  logCapture?: SessionLogCapture;
  /** Frees the slot at once, then closes the browser and removes its folder. Idempotent. */
  release(): Promise<void>;
  /**
   * The session has ended and release() follows once its captures are finished (a few ms, at most
   * seconds): an acquire on a full node waits for this slot instead of refusing.
   */
  ending(): void;
  /**
   * Frees the slot and offers the browser as a spare again: for a lease whose session was never
   * started (its creating call turned out to be a replay), so no client has seen the browser. A
   * browser marked dirty is closed instead (release). Resolves once it is offered or closed.
   */
  unused(): Promise<void>;
  /**
   * Something was put into the browser that no undo removes (an extension loaded, a profile's
   * cookies): it is never offered as a spare again, whoever gives it back. Cannot be taken back.
   */
  markDirty(): void;
}

export interface BrowserPoolOptions {
  executablePath: string;
  /** A folder owned by this process alone: start() deletes every browser folder in it. */
  dataRoot: string;
  capacity: number;
  warm: number;
  /** Most spares kept while recent demand asks for more than `warm` (demand.ts); default `warm`. */
  warmMax?: number;
  log: Logger;
  /** Sent as Retry-After when the pool is full; default 5. */
  retryAfterSeconds?: number;
  /** Send each browser's traffic through its own egress listener (policy-checked); off only in benchmarks. */
  egress?: Omit<EgressOptions, "log">;
  /** Judge clients' CDP commands by the method policy; default true (off only to test the other isolation layers alone). */
  cdpPolicy?: boolean;
  /** This node's isolation (browser/jail/jail.ts detectIsolation): level "jail" launches every browser jailed. Default none. */
  isolation?: Isolation;
  /** How every browser's processes are scheduled next to the node (browser/launch/scheduling.ts); default `normal`. */
  scheduling?: BrowserScheduling;
  /** How a spare nobody waits for waits for quiet CPUs (cpu-idle.ts; refill.ts has the defaults); tests give their own CPU times. */
  quietRefill?: Partial<IdleWait>;
  /** The process that owns the browsers' pipes and relays their CDP clients (browser/cdp/relay/host.ts); unset, the node does. */
  relay?: RelayHost;
  /**
   * Open each browser's session log capture as it launches (browser/logs/capture.ts), so a session
   * that keeps logs finds it attached and its setup is off the session's path; a session that does
   * not closes it.
   */
  logCapture?: boolean;
  /** Keep each browser's downloads in its folder and under `maxBytes` (browser/downloads/download-guard.ts); with the egress policy. */
  downloads?: { maxBytes: number; onNotice(sessionId: string, notice: DownloadNotice): void };
}

/** What the browser pool reports about itself. */
export interface BrowserPoolReport {
  state: "ready" | "unavailable";
  capacity: number;
  inUse: number;
  warm: number;
}
