import type { Logger } from "../../logger.ts";
import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";

/**
 * A session's screen, captured by the node over a CDP channel of its own on the browser's pipe
 * (invisible to the session's clients, who cannot stop it). It follows the active tab: the newest
 * page becomes active when it is created, a page anyone brings to the front or drives
 * (`Target.activateTarget`, `Page.bringToFront`, a navigation, input: pipe/channel.ts FRONT, which
 * the pipe reports; the headless shell has no focus or visibility of its own to poll) becomes active, and when the active page closes the most recently active one left
 * takes over. The active page runs a JPEG screencast (`Page.startScreencast`, an attachment of our own,
 * beside the live view's if someone watches): Chromium sends a frame only when the page changes, so
 * a still page costs next to nothing. Frames are acknowledged at most MAX_FPS times a second and only
 * while the sink keeps up: Chromium keeps few frames unacknowledged, so it simply pauses, and nothing
 * queues here.
 */

/** Where frames go (video-encoder.ts): `atMs` is when Chromium captured the frame (ms since the epoch). */
export interface FrameSink {
  readonly ready: boolean;
  onReady: () => void;
  push(jpeg: Buffer, atMs: number): boolean;
}

export const SCREENCAST = { format: "jpeg", quality: 65, maxWidth: 1280, maxHeight: 800, everyNthFrame: 1 } as const;
const MAX_FPS = 25;
const FRAME_INTERVAL_MS = 1000 / MAX_FPS;
/** base64 of MAX_FRAME_BYTES-sized frames is about this long; a longer one is not decoded at all. */
const MAX_BASE64 = Math.ceil((8 * 1024 * 1024 * 4) / 3) + 4;
/** A screencast start refused while a tab swaps renderer processes is retried (as the live view does). */
const START_ATTEMPTS = 30;
const START_RETRY_MS = 100;
/**
 * A screencast's first frame is whatever the page last drew, which may predate the screencast (a
 * tab that changed between our attach and the start shows its old picture until it draws again, and
 * a still page does not). So a tab that is shown is also captured once with a screenshot, this long
 * after its screencast started: one frame per tab shown, none while the page stays still.
 */
const FIRST_FRAME_MS = 250;
/** How long stop() waits for the screenshot of a session that ended before its first frame. */
const STOP_SHOT_MS = 1_000;

interface TargetInfo {
  targetId: string;
  type: string;
}

export class ScreenRecorder {
  /** Page targets and when each was last made active (a counter): the most recent is the fallback. */
  readonly #pages = new Map<string, number>();
  #clock = 0;
  #active: string | undefined;
  #attachment: string | undefined;
  /** Frames received and not acknowledged yet (their ack ids), oldest first. */
  #unacked: number[] = [];
  #lastAckAt = 0;
  #ackTimer: NodeJS.Timeout | undefined;
  #lastFrameAt = 0;
  /** Frames handed to the sink. */
  #delivered = 0;
  #shotTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  #starting = true;
  readonly #offs: Array<() => void> = [];

  private constructor(
    private readonly cdp: CdpClient,
    pipe: CdpPipe,
    private readonly sink: FrameSink,
    private readonly log: Logger,
  ) {
    sink.onReady = () => this.#pump();
    this.#offs.push(
      cdp.on("Target.targetCreated", (p: { targetInfo: TargetInfo }) => this.#created(p.targetInfo)),
      cdp.on("Target.targetDestroyed", (p: { targetId: string }) => this.#gone(p.targetId)),
      cdp.on("Target.targetCrashed", (p: { targetId: string }) => this.#gone(p.targetId)),
      cdp.on("Target.detachedFromTarget", (p: { sessionId: string }) => {
        if (p.sessionId === this.#attachment) this.#attachment = undefined;
      }),
      cdp.on("Page.screencastFrame", (p: { data: string; metadata: { timestamp?: number }; sessionId: number }, sid) => this.#frame(p, sid)),
      pipe.onFront((targetId) => {
        if (this.#pages.has(targetId)) this.#activate(targetId);
      }),
    );
  }

  /** Starts following the browser's pages; the first frame comes as soon as the active page is shown. */
  static async start(pipe: CdpPipe, sink: FrameSink, log: Logger): Promise<ScreenRecorder> {
    const cdp = await CdpClient.open(pipe);
    const recorder = new ScreenRecorder(cdp, pipe, sink, log);
    try {
      // Discovery reports every existing page as created before it answers; the newest of them is shown.
      await cdp.send("Target.setDiscoverTargets", { discover: true, filter: [{ type: "page" }] });
      recorder.#starting = false;
      const first = recorder.#mostRecent();
      if (first) recorder.#activate(first);
      return recorder;
    } catch (err) {
      recorder.#close();
      throw err;
    }
  }

  /**
   * Stops (the session is ending): no frame is taken after this, and the channel closes, which
   * detaches its attachments and so ends their screencasts. Nothing is awaited, so the session's end
   * (which runs this before its browser closes) is not held up; only a session that ended before
   * its first frame waits for one screenshot (at most STOP_SHOT_MS), so that it has a video at all.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    const active = this.#active;
    if (this.#delivered === 0 && active && this.cdp.isOpen) {
      // The tab's screencast may not have started yet: an attachment of its own for the screenshot then.
      const shoot = async () => {
        const attachment =
          this.#attachment ?? (await this.cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: active, flatten: true })).sessionId;
        return this.cdp.send<{ data: string }>("Page.captureScreenshot", { format: "jpeg", quality: SCREENCAST.quality, optimizeForSpeed: true }, attachment);
      };
      let timer: NodeJS.Timeout | undefined;
      const shot = await Promise.race([
        shoot().catch(() => undefined),
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), STOP_SHOT_MS))),
      ]);
      clearTimeout(timer);
      if (shot && !this.#stopped && this.#delivered === 0) this.#deliver(shot.data, undefined);
    }
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#ackTimer);
    clearTimeout(this.#shotTimer);
    if (this.#attachment) this.cdp.post("Page.stopScreencast", {}, this.#attachment);
    this.#close();
  }

  /** The page on show (tests and logs). */
  get active(): string | undefined {
    return this.#active;
  }

  #close(): void {
    this.#stopped = true;
    for (const off of this.#offs) off();
    this.cdp.close();
  }

  #created(t: TargetInfo): void {
    if (t.type !== "page" || this.#pages.has(t.targetId)) return;
    this.#pages.set(t.targetId, ++this.#clock);
    if (!this.#starting) this.#activate(t.targetId);
  }

  #gone(targetId: string): void {
    if (!this.#pages.delete(targetId)) return;
    if (targetId !== this.#active) return;
    this.#active = undefined;
    const next = this.#mostRecent();
    if (next) this.#activate(next);
  }

  #mostRecent(): string | undefined {
    let best: string | undefined;
    let at = -1;
    for (const [id, seen] of this.#pages) if (seen > at) [best, at] = [id, seen];
    return best;
  }

  #activate(targetId: string): void {
    this.#pages.set(targetId, ++this.#clock);
    if (this.#active === targetId || this.#stopped) return;
    this.#active = targetId;
    this.#show(targetId).catch((err: unknown) => {
      if (!this.#stopped && this.cdp.isOpen && this.#active === targetId) this.log.debug({ err, targetId }, "recording: could not show a tab");
    });
  }

  /**
   * Moves the screencast to `targetId`. Not queued behind the previous move: a tab closing under a
   * command may leave it unanswered for seconds. Each step checks that `targetId` is still the one
   * to show, and a move that was overtaken undoes what it did.
   */
  async #show(targetId: string): Promise<void> {
    if (this.#stopped || this.#active !== targetId) return;
    const previous = this.#attachment;
    this.#attachment = undefined;
    this.#unacked = [];
    if (previous) {
      // Not awaited: a tab that has just closed may never answer, and its frames are ignored from now on.
      this.cdp.post("Page.stopScreencast", {}, previous);
      this.cdp.post("Target.detachFromTarget", { sessionId: previous });
    }
    const { sessionId: attachmentId } = await this.cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
    if (this.#stopped || this.#active !== targetId) return void this.cdp.post("Target.detachFromTarget", { sessionId: attachmentId });
    this.#attachment = attachmentId;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.cdp.send("Page.startScreencast", SCREENCAST, attachmentId);
        clearTimeout(this.#shotTimer);
        this.#shotTimer = setTimeout(() => void this.#screenshot(attachmentId), FIRST_FRAME_MS);
        return;
      } catch (err) {
        if (attempt >= START_ATTEMPTS || this.#stopped || this.#attachment !== attachmentId) throw err;
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }

  #frame(p: { data: string; metadata: { timestamp?: number }; sessionId: number }, sid: string | undefined): void {
    if (this.#stopped || sid === undefined || sid !== this.#attachment) return;
    this.#deliver(p.data, p.metadata?.timestamp);
    if (typeof p.sessionId === "number") this.#unacked.push(p.sessionId);
    this.#pump();
  }

  /** The tab just shown, as it is now (see FIRST_FRAME_MS). */
  async #screenshot(attachmentId: string): Promise<void> {
    if (this.#stopped || this.#attachment !== attachmentId || !this.sink.ready) return;
    const shot = await this.cdp
      .send<{ data: string }>("Page.captureScreenshot", { format: "jpeg", quality: SCREENCAST.quality, optimizeForSpeed: true }, attachmentId)
      .catch(() => undefined);
    if (shot && !this.#stopped && this.#attachment === attachmentId) this.#deliver(shot.data, undefined);
  }

  /** A frame (base64, from Chromium) to the sink, at Chromium's capture time kept between the previous frame's and now. */
  #deliver(data: unknown, timestamp: unknown): void {
    const now = Date.now();
    const reported = typeof timestamp === "number" ? timestamp * 1000 : now;
    const at = Math.min(now, Math.max(this.#lastFrameAt, Number.isFinite(reported) ? reported : now));
    this.#lastFrameAt = at;
    if (typeof data !== "string" || data.length > MAX_BASE64) return;
    this.#delivered++;
    this.sink.push(Buffer.from(data, "base64"), at);
  }

  /** Acknowledges the oldest frame once MAX_FPS allows it and the sink keeps up; Chromium then sends the next. */
  #pump(): void {
    if (this.#ackTimer || this.#unacked.length === 0 || this.#stopped) return;
    const wait = this.#lastAckAt + FRAME_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.#ackTimer = setTimeout(() => {
        this.#ackTimer = undefined;
        this.#pump();
      }, wait);
      return;
    }
    if (!this.sink.ready || !this.#attachment) return; // the sink's onReady pumps again
    this.#lastAckAt = performance.now();
    this.cdp.post("Page.screencastFrameAck", { sessionId: this.#unacked.shift() }, this.#attachment);
    this.#pump();
  }
}
