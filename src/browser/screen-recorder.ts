import type { Logger } from "../logger.ts";
import { CdpClient } from "./cdp-client.ts";
import type { CdpPipe } from "./cdp-pipe.ts";

/**
 * A session's screen, captured by the node over a CDP channel of its own on the browser's pipe
 * (invisible to the session's clients, who cannot stop it). It follows the active tab: the newest
 * page becomes active when it is created, a page anyone brings to the front (`Target.activateTarget`,
 * `Page.bringToFront`, which the pipe reports: the headless shell has no focus or visibility of its
 * own to poll) becomes active, and when the active page closes the most recently active one left
 * takes over. The active page runs a JPEG screencast (`Page.startScreencast`, a session of our own,
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
 * Chromium sends a screencast's first frame only when the page next draws, which a still page may
 * never do, and (rarely, after quick tab switches) a screencast stops sending frames although the
 * page changes. So while the tab on show sends nothing, it is looked at with a screenshot: first
 * FIRST_FRAME_MS after its screencast starts, then every IDLE_CHECK_MS. A screenshot that differs
 * from the previous one becomes a frame (a still page costs a screenshot, never a frame), and one
 * that differs although no frame came between them means the screencast missed a change: it restarts.
 */
const FIRST_FRAME_MS = 250;
const IDLE_CHECK_MS = 5_000;

interface TargetInfo {
  targetId: string;
  type: string;
}

export class ScreenRecorder {
  /** Page targets and when each was last made active (a counter): the most recent is the fallback. */
  readonly #pages = new Map<string, number>();
  #clock = 0;
  #active: string | undefined;
  #session: string | undefined;
  /** Frames received and not acknowledged yet (their ack ids), oldest first. */
  #unacked: number[] = [];
  #lastAckAt = 0;
  #ackTimer: NodeJS.Timeout | undefined;
  #lastFrameAt = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  /** The last screenshot of the tab on show, while no screencast frame has come since. */
  #lastShot: Buffer | undefined;
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
        if (p.sessionId === this.#session) this.#session = undefined;
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
   * Stops at once (the session is ending): no frame is taken after this, and the channel closes,
   * which detaches its sessions and so ends their screencasts. Nothing is awaited, so the
   * session's end (which runs this before its browser closes) is not held up.
   */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#ackTimer);
    clearTimeout(this.#idleTimer);
    if (this.#session) this.cdp.post("Page.stopScreencast", {}, this.#session);
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
    const previous = this.#session;
    this.#session = undefined;
    this.#unacked = [];
    if (previous) {
      // Not awaited: a tab that has just closed may never answer, and its frames are ignored from now on.
      this.cdp.post("Page.stopScreencast", {}, previous);
      this.cdp.post("Target.detachFromTarget", { sessionId: previous });
    }
    const { sessionId } = await this.cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
    if (this.#stopped || this.#active !== targetId) return void this.cdp.post("Target.detachFromTarget", { sessionId });
    this.#session = sessionId;
    this.#lastShot = undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.cdp.send("Page.startScreencast", SCREENCAST, sessionId);
        this.#armIdle(FIRST_FRAME_MS);
        return;
      } catch (err) {
        if (attempt >= START_ATTEMPTS || this.#stopped || this.#session !== sessionId) throw err;
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }

  #frame(p: { data: string; metadata: { timestamp?: number }; sessionId: number }, sid: string | undefined): void {
    if (this.#stopped || sid === undefined || sid !== this.#session) return;
    this.#lastShot = undefined;
    this.#armIdle(IDLE_CHECK_MS);
    this.#deliver(p.data, p.metadata?.timestamp);
    if (typeof p.sessionId === "number") this.#unacked.push(p.sessionId);
    this.#pump();
  }

  #armIdle(ms: number): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => void this.#idleCheck(), ms);
    this.#idleTimer.unref();
  }

  /** The tab on show sent nothing for a while: a screenshot says whether it changed anyway (see IDLE_CHECK_MS). */
  async #idleCheck(): Promise<void> {
    const session = this.#session;
    if (this.#stopped || !session) return;
    const shot = this.sink.ready
      ? await this.cdp.send<{ data: string }>("Page.captureScreenshot", { format: "jpeg", quality: SCREENCAST.quality, optimizeForSpeed: true }, session).catch(() => undefined)
      : undefined;
    if (this.#stopped || this.#session !== session) return;
    this.#armIdle(IDLE_CHECK_MS);
    if (typeof shot?.data !== "string" || shot.data.length > MAX_BASE64) return;
    const bytes = Buffer.from(shot.data, "base64");
    const previous = this.#lastShot;
    this.#lastShot = bytes;
    if (previous?.equals(bytes)) return; // still
    this.#deliver(bytes, undefined);
    if (!previous) return;
    this.log.debug({ targetId: this.#active }, "recording: the screencast missed a change; restarting it");
    this.cdp.post("Page.stopScreencast", {}, session);
    this.cdp.post("Page.startScreencast", SCREENCAST, session);
  }

  /** A frame (base64 from Chromium, or bytes) to the sink, at Chromium's capture time kept between the previous frame's and now. */
  #deliver(data: unknown, timestamp: unknown): void {
    const now = Date.now();
    const reported = typeof timestamp === "number" ? timestamp * 1000 : now;
    const at = Math.min(now, Math.max(this.#lastFrameAt, Number.isFinite(reported) ? reported : now));
    this.#lastFrameAt = at;
    if (Buffer.isBuffer(data)) this.sink.push(data, at);
    else if (typeof data === "string" && data.length <= MAX_BASE64) this.sink.push(Buffer.from(data, "base64"), at);
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
    if (!this.sink.ready || !this.#session) return; // the sink's onReady pumps again
    this.#lastAckAt = performance.now();
    this.cdp.post("Page.screencastFrameAck", { sessionId: this.#unacked.shift() }, this.#session);
    this.#pump();
  }
}
