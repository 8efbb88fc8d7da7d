import { TAIL_LENGTH } from "./wire.ts";

/** One user's share of a browser's pipe (pipe.ts says how users share it). */

/** What a channel needs of its pipe (CdpPipe; named here so the two files do not import each other). */
export interface ChannelPipe {
  write(json: string | Buffer): boolean;
  detach(attachmentId: string): void;
  claim(attachmentId: string, channel: CdpChannel): boolean;
  unclaim(attachmentId: string, channel: CdpChannel): void;
  fronted(targetId: string): void;
  /** Until when the relay withholds request bodies from clients (relay/withheld-post-data.ts); 0: never. */
  readonly withholdPostDataUntil: number;
}

export type PipeMessage = Buffer;

const ATTACHED = Buffer.from('{"method":"Target.attachedToTarget"', "latin1");
const DETACHED = Buffer.from('{"method":"Target.detachedFromTarget"', "latin1");
const CLOSE_BRACE = Buffer.from("}", "latin1");
/**
 * Commands that make a page the active tab: bringing it to the front, and driving it (navigating,
 * typing, clicking in it). The pipe tells its listeners (onFront): the recording, the live view and
 * the session's `page` follow the tab a client works in, not the one it opened last (issue 45).
 * Runtime calls are not among them: clients evaluate in every page they track, driven or not.
 */
export const FRONT = new Set([
  "Target.activateTarget",
  "Page.bringToFront",
  "Page.navigate",
  "Page.reload",
  "Page.navigateToHistoryEntry",
  "Input.dispatchMouseEvent",
  "Input.dispatchKeyEvent",
  "Input.dispatchTouchEvent",
  "Input.insertText",
]);

/**
 * A user of the pipe: a browser-level (or target-level) attachment of its own, and the targets it
 * attached. (CDP calls an attachment a session and its id `sessionId`; here a session is a browser
 * session only, so these are attachments.)
 */
export class CdpChannel {
  /** Chromium's messages for this channel's user, its root attachment id removed. */
  onMessage: (message: PipeMessage) => void = () => {};
  /** Called once when the channel ends (closed by its user, its root detached, or the pipe gone). */
  onClose: () => void = () => {};
  /** The attachments it made, each to its target: attachment id → target id. */
  readonly #attachments = new Map<string, string>();
  #open = true;

  constructor(
    readonly pipe: ChannelPipe,
    readonly root: string,
    /** The target a page endpoint's channel is rooted at (undefined: the browser). */
    readonly rootTarget?: string,
  ) {}

  get isOpen(): boolean {
    return this.#open;
  }

  /** Whether `attachmentId` is one this channel made (its root excluded). */
  owns(attachmentId: string): boolean {
    return this.#attachments.has(attachmentId);
  }

  /**
   * Sends one command: to the root attachment when `sessionId` is undefined, else to an attachment
   * this channel owns (false when it does not: the caller answers the error). `message` is already judged.
   */
  send(message: { id: number; method: string; params?: unknown; sessionId?: string }): boolean {
    if (!this.#open) return false;
    if (message.sessionId !== undefined && !this.#attachments.has(message.sessionId)) return false;
    if (FRONT.has(message.method)) {
      const target =
        message.method !== "Target.activateTarget"
          ? message.sessionId === undefined
            ? this.rootTarget
            : this.#attachments.get(message.sessionId)
          : (message.params as { targetId?: unknown } | undefined)?.targetId;
      if (typeof target === "string") this.pipe.fronted(target);
    }
    const out = { id: message.id, method: message.method, params: message.params ?? {}, sessionId: message.sessionId ?? this.root };
    return this.pipe.write(JSON.stringify(out));
  }

  /** Detaches every attachment of this channel (children first); nothing more is delivered. Idempotent. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const attachment of [...this.#attachments.keys()].reverse()) this.pipe.detach(attachment);
    this.pipe.detach(this.root);
    this.#attachments.clear();
    this.onClose();
  }

  /** @internal the pipe hands over a message for one of this channel's attachments. */
  deliver(message: Buffer, attachment: string): void {
    if (!this.#open) return;
    if (message.subarray(0, ATTACHED.length).equals(ATTACHED)) this.#adopt(message);
    else if (message.subarray(0, DETACHED.length).equals(DETACHED)) this.#release(message);
    if (attachment === this.root) {
      this.onMessage(Buffer.concat([message.subarray(0, message.length - TAIL_LENGTH), CLOSE_BRACE]));
    } else {
      this.onMessage(message);
    }
  }

  /** @internal the pipe ended, or the root attachment was detached by the browser. */
  ended(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const attachment of this.#attachments.keys()) this.pipe.unclaim(attachment, this);
    this.#attachments.clear();
    this.onClose();
  }

  #adopt(message: Buffer): void {
    const { sessionId, targetInfo } =
      (JSON.parse(message.toString("utf8")) as { params?: { sessionId?: unknown; targetInfo?: { targetId?: unknown } } }).params ?? {};
    if (typeof sessionId === "string" && this.pipe.claim(sessionId, this)) this.#attachments.set(sessionId, String(targetInfo?.targetId ?? ""));
  }

  #release(message: Buffer): void {
    const sessionId = (JSON.parse(message.toString("utf8")) as { params?: { sessionId?: unknown } }).params?.sessionId;
    if (typeof sessionId === "string" && this.#attachments.delete(sessionId)) this.pipe.unclaim(sessionId, this);
  }
}
