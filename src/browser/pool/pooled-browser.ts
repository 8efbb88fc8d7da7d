// Launching one browser as the pool runs it: its egress listener, the Chromium process (jailed
// when the node jails browsers) and its download guard, each undone if a later step fails.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PoolFull } from "./errors.ts";
import type { Logger } from "../../logger.ts";
import { launchChromium, maxDataRootLength, type ChromiumProcess } from "../launch/chromium.ts";
import { reapOrphans } from "../launch/processes.ts";
import { DownloadGuard } from "../downloads/download-guard.ts";
import { SessionLogCapture } from "../logs/capture.ts";
import { openEgressListener } from "../egress/proxy.ts";
import { proxyArgs, type EgressListener } from "../egress/shared.ts";
import { JAIL_PROXY_PORT } from "../jail/jail.ts";
import { jailUsers } from "../jail/users.ts";
import type { BrowserPoolOptions } from "./types.ts";
import { warmUpProfile } from "./warm-up.ts";

/** Browser ids are 10 hex characters (40 random bits); folders are created exclusively. */
export const BROWSER_ID_LENGTH = 10;

export interface PoolBrowser {
  browser: ChromiumProcess;
  listener?: EgressListener;
  guard?: DownloadGuard;
  capture?: SessionLogCapture;
}

export async function launchPoolBrowser(opts: BrowserPoolOptions, log: Logger): Promise<PoolBrowser> {
  const egressOptions = opts.egress;
  const downloadOptions = opts.downloads;
  const id = randomBytes(BROWSER_ID_LENGTH / 2).toString("hex"); // short: see maxDataRootLength
  const jailed = opts.isolation?.level === "jail";
  // A jailed browser has no route to this machine's loopback: its listener is a Unix socket next to
  // its folder (bound into the jail, browser/jail/jail.ts), reached at JAIL_PROXY_PORT on the jail's own loopback.
  const socketPath = jailed ? path.join(path.resolve(opts.dataRoot), `${id}.egress.sock`) : undefined;
  const listener = egressOptions ? await openEgressListener({ ...egressOptions, log, ...(socketPath ? { socketPath } : {}) }) : undefined;
  let browser: ChromiumProcess;
  try {
    browser = await launchChromium({
      executablePath: opts.executablePath,
      dataRoot: opts.dataRoot,
      id,
      log,
      extraArgs: listener ? proxyArgs(jailed ? JAIL_PROXY_PORT : listener.port) : [],
      // Without an egress listener a jailed browser has no network at all.
      jail: jailed ? { egressSocket: listener?.socketPath } : undefined,
      scheduling: opts.scheduling,
      ...(opts.relay ? { relay: opts.relay } : {}),
    });
  } catch (err) {
    await listener?.close();
    throw err;
  }
  // A session that keeps logs finds its capture attached already; without one it opens its own.
  const capture = opts.logCapture
    ? await SessionLogCapture.open(browser.cdp).catch(
        (err: unknown) => void log.warn({ err, browserId: id }, "could not attach the session log capture; a session opens its own"),
      )
    : undefined;
  // Refusals by the session's network rules are logged with the requests they failed.
  if (listener && capture) listener.route.watch = (refusal) => capture.egressRefused(refusal);
  const parts = { browser, ...(listener ? { listener } : {}), ...(capture ? { capture } : {}) };
  if (!downloadOptions) return parts;
  // Before the browser is offered: no client may see it without its download policy.
  try {
    const guard = await DownloadGuard.open(browser.cdp, path.join(browser.dir, "downloads"), downloadOptions.maxBytes, log);
    guard.onNotice = downloadOptions.onNotice;
    return { ...parts, guard };
  } catch (err) {
    await browser.close();
    await listener?.close();
    throw err;
  }
}

/** What a lease of the browser carries besides the browser: its egress route, download guard and session log capture. */
export function leaseParts(parts: PoolBrowser | undefined) {
  return { egress: parts?.listener?.route, downloads: parts?.guard, logCapture: parts?.capture };
}

/** The pool's folder, checked and cleared of what an earlier run left (pid files), and whether Chromium is there. */
export async function prepareDataRoot(
  opts: BrowserPoolOptions,
  log: Logger,
): Promise<{ reaped: { orphansKilled: number; foldersRemoved: number }; binaryFound: boolean }> {
  const root = path.resolve(opts.dataRoot);
  if (root.length > maxDataRootLength(BROWSER_ID_LENGTH)) {
    throw new Error(`browser data root ${root} is too long for Chromium's socket paths (at most ${maxDataRootLength(BROWSER_ID_LENGTH)} characters)`);
  }
  fs.mkdirSync(opts.dataRoot, { recursive: true, mode: 0o700 });
  // Jails started as users of their own must pass through it to their folders (bwrap binds them as
  // that user); they may not list it. Each folder in it keeps its own owner and mode (browser/launch/chromium.ts).
  if (opts.isolation?.level === "jail" && jailUsers().switching) fs.chmodSync(opts.dataRoot, 0o711);
  const reaped = await reapOrphans(opts.dataRoot, log);
  try {
    fs.accessSync(opts.executablePath, fs.constants.X_OK);
    return { reaped, binaryFound: true };
  } catch {
    log.error({ executablePath: opts.executablePath }, "no Chromium binary: sessions cannot start");
    return { reaped, binaryFound: false };
  }
}

/** Said at every start, loudly, when a layer of the browsers' isolation is off. */
export function warnAboutWeakenedIsolation(opts: BrowserPoolOptions, jailed: boolean, log: Logger): void {
  if (process.getuid?.() === 0 && !jailed) {
    // Chromium refuses to run as root with its sandbox (a jailed one runs as a plain user inside): say so plainly every start.
    log.warn("running as root: Chromium runs WITHOUT its sandbox; run Vessel as a non-root user in production (docs/sessions.md: Browser security)");
  }
  if (!opts.egress) log.warn("the browser policy is off: sessions can reach this machine and its networks");
  if (opts.cdpPolicy === false) log.error("the CDP method policy is OFF: clients may send any command to their browsers (for isolation tests only)");
}

/** Before a spare is offered: a session must not get a browser whose profile is half set up. */
export async function warmUpSpare(browser: ChromiumProcess, log: Logger): Promise<void> {
  await warmUpProfile(browser.cdp).catch((err: unknown) => {
    if (browser.alive) log.warn({ err, browserId: browser.id }, "could not warm up a spare browser; offering it as it is");
  });
}

/** What a node whose every browser is in use says (a client may retry after `retryAfterSeconds`, 5 unless configured). */
export function poolFull(opts: BrowserPoolOptions): PoolFull {
  return new PoolFull(opts.capacity, opts.retryAfterSeconds ?? 5);
}
