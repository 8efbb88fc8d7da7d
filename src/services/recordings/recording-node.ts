import fs from "node:fs";
import type { RecordingStatus } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import type { Logger } from "../../logger.ts";
import { removeStored } from "./recording-store.ts";

/** The failure of a recording whose node stopped (or died) before it was stored. */
export const NODE_STOPPED = "the node that recorded it stopped before the recording was stored";

/**
 * This node's part in recordings: the folder its encoders write into, and the recordings it has yet
 * to store. A recording is finished after its session has ended (ffmpeg's tail, sealing, storing),
 * so a drain or a stop waits for `settled()` after the last session, or the videos would be lost.
 */
export class RecordingNode {
  readonly #pending = new Set<Promise<void>>();

  constructor(
    /** A folder of this node's own (mode 0700) holding one private folder per recording being made. */
    readonly workRoot: string,
  ) {}

  #warnedUnjailed = false;

  /** Said once per node: ffmpeg parses what a tenant's browser sends, and runs jailed only where browsers are. */
  warnUnjailed(log: Logger): void {
    if (this.#warnedUnjailed) return;
    this.#warnedUnjailed = true;
    log.warn("recordings are encoded by ffmpeg WITHOUT a jail, as browsers run on this node (isolation none): ffmpeg parses frames a tenant's browser sends");
  }

  /** Recordings being made or stored on this node. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Keeps `work` (a recording's whole life) until it settles. */
  track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /** Resolves once every recording this node is making has been stored (or has failed), or at `deadline` (performance.now()). */
  async settled(deadline = Infinity): Promise<void> {
    while (this.#pending.size > 0) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.#pending]), new Promise((resolve) => (timer = setTimeout(resolve, Math.min(left, 2 ** 31 - 1))))]);
      clearTimeout(timer);
    }
  }

  /**
   * At start: what a previous run of this node left unfinished cannot be finished any more (its
   * frames were in that process), so those recordings fail, and their work folders go.
   */
  async start(deps: Pick<AppDeps, "db" | "nodeId" | "log" | "config">): Promise<void> {
    fs.rmSync(this.workRoot, { recursive: true, force: true });
    // 0711: a jailed encoder, started as a host user of its own, passes through to its recording's 0700 folder (never lists it).
    fs.mkdirSync(this.workRoot, { recursive: true, mode: 0o711 });
    const unfinished = { nodeId: deps.nodeId, status: { in: ["RECORDING", "PROCESSING"] as RecordingStatus[] } };
    const left = await deps.db.prisma.recording.findMany({ where: unfinished, select: { sessionId: true, storage: true } });
    for (const rec of left) {
      await deps.db.prisma.recording.updateMany({ where: { ...unfinished, sessionId: rec.sessionId }, data: { status: "FAILED", failure: NODE_STOPPED } });
      await removeStored({ prisma: deps.db.prisma, config: deps.config }, rec);
    }
    if (left.length > 0) deps.log.warn({ recordings: left.length }, "recordings a previous run of this node left unfinished have failed");
  }

  /** After `settled()`: the work folder goes. */
  close(): void {
    fs.rmSync(this.workRoot, { recursive: true, force: true });
  }
}
