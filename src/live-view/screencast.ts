import type { Logger } from "../logger.ts";
import type { CdpClient } from "../browser/cdp/pipe/client.ts";
import { cssViewport, type FrameMetadata } from "./input.ts";

/** Where frames go: the viewer's socket, which says whether it keeps up. */
export interface FrameLink {
  /** True while the viewer has few enough frames outstanding to take another now. */
  ready(): boolean;
  /** Sends a frame (header + JPEG) as one binary message. */
  deliver(frame: Buffer): void;
}

/** JPEG quality: the best we send, the floor we lower it to on a slow link, and the steps. */
export const QUALITY_MAX = 80;
export const QUALITY_MIN = 30;
const QUALITY_DOWN = 15;
const QUALITY_UP = 10;
/** How often the link is judged; a quality change restarts the screencast, so not too often. */
const ADAPT_EVERY_MS = 1_000;
/** Judged slow when this share of a period's frames had to wait for the viewer. */
const SLOW_SHARE = 0.3;
/** Raised again after this many periods in a row where no frame waited. */
const FAST_PERIODS = 3;
/** Fewer frames than this in a period say nothing about the link (a page load's burst, a static page). */
const MIN_FRAMES_TO_JUDGE = 8;
const START_ATTEMPTS = 30;
const START_RETRY_MS = 100;
/** Frame metadata kept for mapping input on frames the viewer may still be showing. */
const METADATA_KEPT = 64;

export const FRAME_HEADER_BYTES = 8;

interface Params {
  maxWidth: number;
  maxHeight: number;
  quality: number;
}

/**
 * The screencast of one tab for one viewer. Flow control rides on Chromium's own: it stops
 * capturing while a few frames are unacknowledged, so we acknowledge a frame only once the viewer
 * can take another. When the viewer falls behind, the newest frame waits (replacing any older one
 * that waited) and Chromium pauses; a slow link therefore gets fewer, fresher frames instead of a
 * growing queue, and the quality drops until the viewer keeps up again.
 */
export class Screencast {
  private attachmentId: string | undefined;
  private targetId: string | undefined;
  private params: Params;
  private seq = 0;
  private waiting: Buffer | undefined;
  /** Chromium's ack ids of frames we have not acknowledged yet (the viewer was behind). */
  private held: number[] = [];
  private readonly metadata = new Map<number, FrameMetadata>();
  private latest: FrameMetadata | undefined;
  /** One CDP change at a time: Chromium refuses a start while a screencast is active. */
  private chain: Promise<void> = Promise.resolve();
  private periodFrames = 0;
  private periodHeld = 0;
  private fastPeriods = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly offFrame: () => void;
  private readonly offDetached: () => void;
  private closed = false;

  constructor(
    private readonly cdp: CdpClient,
    private readonly link: FrameLink,
    private readonly log: Logger,
    bounds: { maxWidth: number; maxHeight: number },
    /** The tab went away under us (closed, crashed). */
    private readonly onLost: (targetId: string) => void,
    /** Run on the tab's attachment before each start (a new tab, a new size): phone-fit.ts. */
    private readonly beforeStart?: (attachment: string) => Promise<void>,
  ) {
    this.params = { ...bounds, quality: QUALITY_MAX };
    this.offFrame = cdp.on("Page.screencastFrame", (p: { data: string; metadata: FrameMetadata; sessionId: number }, sid) => {
      if (sid === this.attachmentId) this.frame(p);
    });
    this.offDetached = cdp.on("Target.detachedFromTarget", (p: { sessionId: string }) => {
      if (p.sessionId !== this.attachmentId || !this.targetId) return;
      const lost = this.targetId;
      this.attachmentId = this.targetId = undefined;
      this.onLost(lost);
    });
    this.timer = setInterval(() => this.adapt(), ADAPT_EVERY_MS);
    this.timer.unref();
  }

  get target(): string | undefined {
    return this.targetId;
  }

  /** The metadata of frame `seq` (what the viewer was looking at), else of the newest frame. */
  metadataFor(seq: number | undefined): FrameMetadata | undefined {
    return (seq !== undefined ? this.metadata.get(seq) : undefined) ?? this.latest;
  }

  /** The CDP attachment of the tab on show (input goes there). */
  get attachment(): string | undefined {
    return this.attachmentId;
  }

  /** Shows another tab: detach from the current one, attach (flattened) to `targetId`, start. */
  show(targetId: string): Promise<void> {
    return this.enqueue(async () => {
      if (this.targetId === targetId && this.attachmentId) return;
      await this.detach();
      const { sessionId: attachmentId } = await this.cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
      if (this.closed) return void this.cdp.post("Target.detachFromTarget", { sessionId: attachmentId });
      this.attachmentId = attachmentId;
      this.targetId = targetId;
      this.latest = undefined;
      this.metadata.clear();
      await this.start();
    });
  }

  /** The viewer's canvas changed size. */
  resize(bounds: { maxWidth: number; maxHeight: number }): Promise<void> {
    if (bounds.maxWidth === this.params.maxWidth && bounds.maxHeight === this.params.maxHeight) return Promise.resolve();
    this.params = { ...this.params, ...bounds };
    return this.enqueue(() => this.restart());
  }

  /** The viewer drew a frame (or its socket drained): send what waited and let Chromium go on. */
  viewerReady(): void {
    if (!this.link.ready()) return;
    if (this.waiting) {
      const frame = this.waiting;
      this.waiting = undefined;
      this.link.deliver(frame);
    }
    this.releaseHeld();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.offFrame();
    this.offDetached();
    // The browser connection closes right after; its screencast and attachments go with it.
  }

  private frame(p: { data: string; metadata: FrameMetadata; sessionId: number }): void {
    const seq = (this.seq = (this.seq + 1) >>> 0);
    this.metadata.set(seq, p.metadata);
    this.metadata.delete(seq - METADATA_KEPT);
    this.latest = p.metadata;
    this.periodFrames++;
    // The base64 is decoded once, straight into the message the viewer gets.
    const bytes = Buffer.byteLength(p.data, "base64");
    const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bytes);
    const { width, height } = cssViewport(p.metadata);
    frame.writeUInt32BE(seq, 0);
    frame.writeUInt16BE(Math.min(0xffff, Math.max(0, width)), 4);
    frame.writeUInt16BE(Math.min(0xffff, Math.max(0, height)), 6);
    frame.write(p.data, FRAME_HEADER_BYTES, "base64");
    if (this.link.ready()) {
      this.link.deliver(frame);
      this.cdp.post("Page.screencastFrameAck", { sessionId: p.sessionId }, this.attachmentId);
    } else {
      this.periodHeld++;
      this.waiting = frame;
      this.held.push(p.sessionId);
    }
  }

  private releaseHeld(): void {
    const attachment = this.attachmentId;
    for (const ackId of this.held.splice(0)) if (attachment) this.cdp.post("Page.screencastFrameAck", { sessionId: ackId }, attachment);
  }

  /** Once a period: a slow link gets a lower JPEG quality, a link that keeps up gets it back. */
  private adapt(): void {
    const frames = this.periodFrames;
    const held = this.periodHeld;
    this.periodFrames = this.periodHeld = 0;
    if (!this.attachmentId || frames === 0) return;
    let next = this.params.quality;
    if (frames >= MIN_FRAMES_TO_JUDGE && held / frames >= SLOW_SHARE) {
      this.fastPeriods = 0;
      next = Math.max(QUALITY_MIN, next - QUALITY_DOWN);
    } else if (held === 0 && ++this.fastPeriods >= FAST_PERIODS) {
      this.fastPeriods = 0;
      next = Math.min(QUALITY_MAX, next + QUALITY_UP);
    }
    if (next === this.params.quality) return;
    this.log.debug({ from: this.params.quality, to: next, frames, held }, "live view: JPEG quality changed");
    this.params = { ...this.params, quality: next };
    void this.enqueue(() => this.restart());
  }

  /**
   * While a tab swaps renderer processes (a cross-site navigation), Chromium refuses screencast
   * commands ("Not attached to an active page") for a moment; a start that fails then is retried, or
   * the picture would stay frozen on the old page.
   */
  private async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const attachment = this.attachmentId;
      if (!attachment || this.closed) return;
      try {
        if (attempt === 1) await this.beforeStart?.(attachment).catch((err: unknown) => this.log.debug({ err }, "live view: could not fit the page"));
        await this.cdp.send("Page.startScreencast", { format: "jpeg", everyNthFrame: 1, ...this.params }, attachment);
        return;
      } catch (err) {
        if (attempt >= START_ATTEMPTS || !this.cdp.isOpen || attachment !== this.attachmentId) throw err;
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }

  private async restart(): Promise<void> {
    if (!this.attachmentId || this.closed) return;
    // Mid-navigation the stop can be refused too; the screencast is then stopped anyway or replaced by the start.
    await this.cdp.send("Page.stopScreencast", {}, this.attachmentId).catch(() => {});
    // Acks for frames of the stopped run are not needed any more; a waiting frame is still worth showing.
    this.held = [];
    await this.start();
  }

  private async detach(): Promise<void> {
    const attachment = this.attachmentId;
    this.attachmentId = this.targetId = undefined;
    this.waiting = undefined;
    this.held = [];
    if (!attachment) return;
    await this.cdp.send("Page.stopScreencast", {}, attachment).catch(() => {});
    await this.cdp.send("Target.detachFromTarget", { sessionId: attachment }).catch(() => {});
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(() => (this.closed ? undefined : step()));
    this.chain = run.catch((err: unknown) => {
      if (!this.closed && this.cdp.isOpen) this.log.debug({ err }, "live view: screencast step failed");
    });
    return run;
  }
}
