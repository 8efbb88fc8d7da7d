// The logs of the sessions that run on this node: each one's capture on its browser, its writer,
// and what the CDP proxy and the readers ask of them.
import type { CommandLogSink } from "../../browser/cdp/relay/command-log.ts";
import type { BrowserLease } from "../../browser/pool/types.ts";
import type { SessionRuntime } from "../../browser/runtime/runtime.ts";
import { SessionLogCapture, type CapturedEntry } from "../../browser/logs/capture.ts";
import { SessionLogWriter, type WriterDeps } from "./log-writer.ts";

/** How long a reader of a session that just ended waits for its last entries to be written here. */
const SETTLE_MS = 4_000;

interface Running {
  writer: SessionLogWriter;
  capture?: SessionLogCapture;
  ending: boolean;
}

export class SessionLogs {
  readonly #running = new Map<string, Running>();

  constructor(private readonly deps: WriterDeps & { runtime: Pick<SessionRuntime, "addFinisher"> }) {}

  /**
   * Starts a session's log as it starts: the capture's connection to the browser is asked for now
   * (written to the pipe before the create is answered), the writer from the first entry on, and
   * both stop as the session ends (the runtime's finisher), before its browser closes.
   */
  start(session: { id: string; workspaceId: string; startedAt: Date | null }, lease: BrowserLease): void {
    const writer = new SessionLogWriter(this.deps, session.id, session.workspaceId, session.startedAt ?? this.deps.now());
    const running: Running = { writer, ending: false };
    if (!this.deps.runtime.addFinisher(session.id, () => this.#finish(session.id, running))) return;
    this.#running.set(session.id, running);
    const sink = (e: CapturedEntry) => writer.record(e.type, e.at, e.data);
    // Opened with the browser (a spare's): its setup is off the session's path.
    if (lease.logCapture?.isOpen) {
      lease.logCapture.sink = sink;
      running.capture = lease.logCapture;
      return;
    }
    SessionLogCapture.open(lease.cdp, sink).then(
      (capture) => {
        if (running.ending) return capture.close();
        running.capture = capture;
        if (lease.egress) lease.egress.watch = (refusal) => capture.egressRefused(refusal);
      },
      (err: unknown) => this.deps.log.warn({ err, sessionId: session.id }, "could not start capturing a session's logs"),
    );
  }

  /** Where the CDP proxy sends a client connection's methods and their times; undefined when the session's logs are off (or it does not run here). */
  commandLog(sessionId: string): CommandLogSink | undefined {
    const running = this.#running.get(sessionId);
    if (!running) return undefined;
    const { writer } = running;
    return (method, at, durationMs, refused, run) =>
      writer.record(
        "cdp",
        new Date(at),
        refused
          ? { method, duration_ms: durationMs, refused: true }
          : run
            ? { method, duration_ms: durationMs, count: run.count, total_ms: run.totalMs, max_ms: run.maxMs }
            : { method, duration_ms: durationMs },
      );
  }

  /**
   * For a session whose end is recorded: resolves once what this node captured of it is written,
   * at once when this node does not capture it (any more), else when its writer has finished (at
   * most SETTLE_MS: its teardown runs right after the end's statement).
   */
  async settled(sessionId: string): Promise<void> {
    const running = this.#running.get(sessionId);
    if (!running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running.writer.finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_MS)))]);
    clearTimeout(timer);
  }

  /** Whether this node writes the session's log now. */
  captures(sessionId: string): boolean {
    return this.#running.has(sessionId);
  }

  async #finish(sessionId: string, running: Running): Promise<void> {
    running.ending = true;
    try {
      // The call that ended the session has its answer written first (the capture's detaches and,
      // on the embedded database, the last statement run in this thread).
      await new Promise((resolve) => setImmediate(resolve));
      running.capture?.close();
      await running.writer.finish();
    } finally {
      if (this.#running.get(sessionId) === running) this.#running.delete(sessionId);
    }
  }
}
