import type { Logger } from "../../logger.ts";
import type { ProfileCookie, ProfileDocument } from "./format.ts";
import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";
import { StorageSeeder } from "./seeding.ts";

/**
 * Puts a profile into a fresh session browser before anyone else connects to it:
 *
 * - Cookies: `Storage.setCookies` on the default context, so the first request of the first
 *   navigation already carries them.
 * - localStorage and sessionStorage: seeded into each origin's first document as it starts, before
 *   any of the page's own scripts, by a watcher connection that stays with the session
 *   (seeding.ts). Nothing is visited ahead of time, so the restore costs about the same for
 *   5 origins as for 1.
 */

export { SEED_WORLD } from "./seeding.ts";

interface CdpCookieParam {
  name: string;
  value: string;
  domain: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: "Strict" | "Lax" | "None";
  expires?: number;
  partitionKey?: { topLevelSite: string; hasCrossSiteAncestor: boolean };
}

function toCdpCookie(c: ProfileCookie): CdpCookieParam {
  return {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    ...(c.expires === -1 ? {} : { expires: c.expires }),
    ...(c.partitionKey ? { partitionKey: c.partitionKey } : {}),
  };
}

export interface RestoreReport {
  cookies: number;
  /** Cookies not set: expired since they were saved, or refused by this Chromium (a rule it added). */
  cookiesSkipped: number;
  /** Origins whose localStorage is seeded on their first document. */
  localStorageOrigins: number;
  sessionStorageOrigins: number;
  /** From the start: when cookies were set, when the storage watcher had prepared every existing tab (the two run side by side). */
  cookiesMs: number;
  storageWatcherMs: number;
  ms: number;
}

/**
 * Restores `doc` into the browser on `pipe` (a session's fresh browser) while the pipe holds every
 * other channel (CdpPipe.held): the session can be answered at once, and its first client, live
 * view or capture reaches the browser only once cookies are set and the storage watcher is attached
 * to every existing tab. Resolves then; the watcher lives until the browser closes (or has nothing
 * left to seed). A failure is the caller's to act on: the held channels are refused.
 */
export function restoreProfile(pipe: CdpPipe, doc: ProfileDocument, log: Logger): Promise<RestoreReport> {
  const started = performance.now();
  // Opened before the hold, which it would otherwise wait for.
  const opened = CdpClient.open(pipe);
  const done = opened.then((cdp) => restoreWith(cdp, pipe, doc, log, started));
  const held = done.then(() => {});
  pipe.held = held;
  held.then(
    () => {
      if (pipe.held === held) pipe.held = undefined;
    },
    () => {},
  ); // a failure stays: every channel is refused
  return done;
}

async function restoreWith(cdp: CdpClient, pipe: CdpPipe, doc: ProfileDocument, log: Logger, started: number): Promise<RestoreReport> {
  let keepOpen = false;
  try {
    const nowSeconds = Date.now() / 1000;
    const live = doc.cookies.filter((c) => c.expires === -1 || c.expires > nowSeconds);
    const withStorage = doc.origins.filter((o) => o.localStorage.length > 0 || o.sessionStorage.length > 0);
    const since = (t: number) => Math.round(performance.now() - t);
    const phases = { cookiesMs: 0, storageWatcherMs: 0 };
    const watching = async () => {
      if (withStorage.length === 0) return;
      await new StorageSeeder(cdp, pipe, withStorage, log).start();
      keepOpen = true;
    };
    // Independent of each other: seeding happens in documents, which no client can open before both are done.
    const [refused] = await Promise.all([
      setCookies(cdp, live.map(toCdpCookie)).finally(() => (phases.cookiesMs = since(started))),
      watching().finally(() => (phases.storageWatcherMs = since(started))),
    ]);
    return {
      cookies: live.length - refused,
      cookiesSkipped: doc.cookies.length - live.length + refused,
      localStorageOrigins: doc.origins.filter((o) => o.localStorage.length > 0).length,
      sessionStorageOrigins: doc.origins.filter((o) => o.sessionStorage.length > 0).length,
      ...phases,
      ms: performance.now() - started,
    };
  } finally {
    if (!keepOpen) cdp.close();
  }
}

/** Sets every cookie in one call; when the browser refuses the batch, one by one, so one bad cookie costs only itself. Returns how many were refused. */
async function setCookies(cdp: CdpClient, cookies: CdpCookieParam[]): Promise<number> {
  if (cookies.length === 0) return 0;
  try {
    await cdp.send("Storage.setCookies", { cookies });
    return 0;
  } catch {
    let refused = 0;
    for (const cookie of cookies) await cdp.send("Storage.setCookies", { cookies: [cookie] }).catch(() => refused++);
    return refused;
  }
}
