import { spawnSync } from "node:child_process";
import fs from "node:fs";

/**
 * How the browsers' processes are scheduled next to the node (`VESSEL_BROWSER_SCHEDULING`).
 *
 * `batch` (the default) starts each browser under Linux's SCHED_BATCH policy, which its every
 * process (zygote, renderers, GPU, utility) inherits: the same fair share of the CPU as before,
 * but a browser thread that wakes up no longer preempts the thread that woke it. Every message the
 * node writes to a browser's pipe wakes that browser, and on a busy machine the kernel then often
 * ran the browser at once and left the node's event loop (the CDP relay, the API, every other
 * session) descheduled inside its write: measured in bench/bursts, a write of `Browser.close` took
 * 4.6 ms of the event loop on average, `Browser.setDownloadBehavior` 1.6 ms (1.2 and 0.3 ms with
 * `batch`). The lifecycle through Vessel went from a median 1.35× to 1.30× an already-running
 * Chromium (bench/sessions (a), 7 and 9 runs alternated); the CDP round trip (quiet and under load)
 * and profile starts, where a browser must answer at once, did not move (docs/performance.md).
 *
 * `normal` leaves the browsers under the default policy. Setting SCHED_BATCH needs no privilege;
 * it is applied by util-linux's `chrt` (Essential on Debian), exec'd in place so the pid stays the
 * browser's (or its jail's). Where `chrt` is missing or cannot set the policy, the browser starts
 * as `normal`.
 */
export type BrowserScheduling = "batch" | "normal";

const CHRT = ["/usr/bin/chrt", "/bin/chrt"];
let chrt: string | null | undefined;

/**
 * chrt, once it has been seen to work here (probed once, a few ms): a chrt that cannot set the
 * policy (a seccomp profile that forbids it) exits without starting the browser, so a browser is
 * then started as `normal` instead of not at all.
 */
function workingChrt(): string | null {
  chrt ??=
    CHRT.find((candidate) => fs.existsSync(candidate) && spawnSync(candidate, ["--batch", "0", "true"], { stdio: "ignore", timeout: 5_000 }).status === 0) ??
    null;
  return chrt;
}

/** The command and arguments that start `command` under `scheduling` (unchanged for `normal`, or without chrt). */
export function scheduledCommand(command: string, args: readonly string[], scheduling: BrowserScheduling | undefined): { command: string; args: string[] } {
  const wrapper = scheduling === "batch" ? workingChrt() : null;
  return wrapper ? { command: wrapper, args: ["--batch", "0", command, ...args] } : { command, args: [...args] };
}
