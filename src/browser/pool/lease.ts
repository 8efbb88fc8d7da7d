// A lease: one browser serving one session, holding one of the pool's slots until it is released,
// given back unused, or its browser exits on its own.
import path from "node:path";
import type { Logger } from "../../logger.ts";
import { stderrTail, type ChromiumExit, type ChromiumProcess } from "../launch/chromium.ts";
import type { DownloadGuard } from "../downloads/download-guard.ts";
import type { EgressRoute } from "../egress/shared.ts";
import type { BrowserLease } from "./types.ts";
import type { SessionLogCapture } from "../logs/capture.ts";

/** What a lease asks of its pool; each is synchronous, so a slot is free the moment it is given back. */
export interface LeaseHooks {
  /** Whether this lease still holds its slot. */
  holds(lease: BrowserLease): boolean;
  free(): void;
  /** The slot will come back soon (BrowserLease.ending). */
  ending(): void;
  /** Starts launching spares if the pool has room for more. */
  refill(): void;
  /** A browser no client has seen: a spare again, or closed when the pool no longer runs. */
  giveBack(browser: ChromiumProcess): void;
  log: Logger;
}

export function leaseBrowser(
  sessionId: string,
  browser: ChromiumProcess,
  parts: { egress?: EgressRoute | undefined; downloads?: DownloadGuard | undefined; logCapture?: SessionLogCapture | undefined },
  hooks: LeaseHooks,
): BrowserLease {
  const { egress, downloads, logCapture } = parts;
  const release = (): Promise<void> => {
    // Evict before any await: the slot is free the moment release() is called.
    if (hooks.holds(lease)) {
      hooks.free();
      hooks.refill();
    }
    return browser.close();
  };
  let dirty = false;
  const unused = async (): Promise<void> => {
    if (!hooks.holds(lease)) return;
    // Dirty: no other session, of this workspace or another, may get what is left in it.
    if (dirty) return release();
    hooks.free();
    if (egress) {
      egress.sessionId = undefined;
      egress.upstream = undefined;
      egress.rules = undefined;
    }
    if (downloads) downloads.sessionId = undefined;
    if (logCapture) logCapture.sink = () => {};
    hooks.giveBack(browser);
    hooks.refill();
  };
  if (egress) egress.sessionId = sessionId;
  if (downloads) downloads.sessionId = sessionId;
  const lease: BrowserLease = {
    id: browser.id,
    sessionId,
    cdp: browser.cdp,
    pid: browser.pid,
    exited: browser.exited,
    downloadsDir: path.join(browser.dir, "downloads"),
    uploadsDir: path.join(browser.dir, "uploads"),
    ...(egress ? { egress } : {}),
    ...(downloads ? { downloads } : {}),
    ...(logCapture ? { logCapture } : {}),
    release,
    unused,
    markDirty: () => {
      dirty = true;
    },
    ending: () => {
      if (hooks.holds(lease)) hooks.ending();
    },
  };
  void browser.exited.then((exit: ChromiumExit) => {
    if (!hooks.holds(lease)) return; // released: expected
    hooks.free();
    hooks.log.warn({ sessionId, browserId: browser.id, browserPid: browser.pid, ...exit, stderr: stderrTail(browser) }, "a leased browser exited on its own");
    hooks.refill();
  });
  return lease;
}
