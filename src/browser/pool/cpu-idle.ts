import fs from "node:fs";

/**
 * When the pool's background launches start (pool.ts: a spare's replacement). A starting Chromium
 * takes a core or two for a while (its browser process, GPU and network service, the warm-up), and
 * on a small node that time comes out of whatever runs beside it: the session that just took a
 * spare and is connecting, opening its first page and loading it. Measured on 2 cores (bench/sessions
 * (a), warm spares 2, alternated): with the replacement starting 250 ms after the take, it landed in
 * the session's first page load (goto 78–120 ms against 44–48 ms on an already-running browser);
 * started once the CPUs were quiet, goto took 61–73 ms and the lifecycle 1.20–1.31× the running
 * browser instead of 1.35–1.52× (docs/performance.md).
 *
 * So a launch that nobody waits for (a spare is still ready, no burst) waits here for a quiet
 * moment: one window in which the machine's CPUs were idle at least `idleShare` of the time, read
 * from Linux's /proc/stat. It never waits less than `minMs` nor more than `maxMs`: on a machine that
 * is never quiet the spare still comes, only later. Where /proc/stat cannot be read, it starts after
 * `minMs`, as a plain delay would.
 */
export interface IdleWait {
  /** Fraction of all CPUs' time idle in one window that counts as quiet (0.6: more than half the cores free, on 2 cores). */
  idleShare: number;
  /** The window over which idleness is measured (the kernel counts in 10 ms ticks: 100 ms is 20 ticks on 2 cores). */
  windowMs: number;
  minMs: number;
  maxMs: number;
  /** The machine's CPU time so far (tests give their own); undefined when it cannot be read. */
  readTimes?: () => CpuTimes | undefined;
}

export interface CpuTimes {
  idle: number;
  total: number;
}

/** All CPUs' time from /proc/stat's first line, in clock ticks: idle (with I/O wait) and in all. */
export function procCpuTimes(): CpuTimes | undefined {
  let line: string;
  try {
    line = fs.readFileSync("/proc/stat", "utf8").slice(0, 256).split("\n", 1)[0]!;
  } catch {
    return undefined;
  }
  const fields = line.split(/\s+/).slice(1, 9).map(Number);
  if (!line.startsWith("cpu ") || fields.length < 5 || fields.some((n) => !Number.isFinite(n))) return undefined;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** Runs `run` once the CPUs are quiet (or `maxMs` has passed); returns a cancel that stops the wait. */
export function whenCpuIdle(run: () => void, opts: IdleWait): () => void {
  const read = opts.readTimes ?? procCpuTimes;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let last = read();
  const check = () => {
    const now = read();
    const waited = performance.now() - started;
    const quiet = last !== undefined && now !== undefined && now.total > last.total && (now.idle - last.idle) / (now.total - last.total) >= opts.idleShare;
    last = now;
    // Unreadable: no reason to wait past the least.
    if (waited >= opts.maxMs || (waited >= opts.minMs && (quiet || now === undefined))) {
      timer = undefined;
      return run();
    }
    timer = setTimeout(check, opts.windowMs);
  };
  timer = setTimeout(check, opts.windowMs);
  return () => clearTimeout(timer);
}
