import { TAIL_LENGTH } from "./wire.ts";

/** One user's share of a browser's pipe (pipe.ts says how users share it). */

/** What a channel needs of its pipe (CdpPipe; named here so the two files do not import each other). */
export interface ChannelPipe {
  write(json: string | Buffer): boolean;
  detach(sessionId: string): void;
  claim(sessionId: string, channel: CdpChannel): boolean;
  unclaim(sessionId: string, channel: CdpChannel): void;
  fronted(targetId: string): void;
}

export type PipeMessage = Buffer;

const ATTACHED = Buffer.from('{"method":"Target.attachedToTarget"', "latin1");
const DETACHED = Buffer.from('{"method":"Target.detachedFromTarget"', "latin1");
const CLOSE_BRACE = Buffer.from("}", "latin1");
/** Commands that bring a page to the front: the pipe tells its listeners (onFront). */
const FRONT = new Set(["Target.activateTarget", "Page.bringToFront"]);

/** A user of the pipe: a browser-level (or target-level) session of its own, and the sessions it attached. */
export class CdpChannel {
  /** Chromium's messages for this channel's user, its root session id removed. */
  onMessage: (message: PipeMessage) => void = () => {};
  /** Called once when the channel ends (closed by its user, its root detached, or the pipe gone). */
  onClose: () => void = () => {};
  /** The sessions it attached, each to its target. */
  readonly #sessions = new Map<string, string>();
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

  /** Whether `sessionId` is one this channel attached (its root excluded). */
  owns(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  /**
   * Sends one command: to the root session when `sessionId` is undefined, else to a session this
   * channel owns (false when it does not: the caller answers the error). `message` is already judged.
   */
  send(message: { id: number; method: string; params?: unknown; sessionId?: string }): boolean {
    if (!this.#open) return false;
    if (message.sessionId !== undefined && !this.#sessions.has(message.sessionId)) return false;
    if (FRONT.has(message.method)) {
      const target = message.method === "Page.bringToFront"
        ? (message.sessionId === undefined ? this.rootTarget : this.#sessions.get(message.sessionId))
        : (message.params as { targetId?: unknown } | undefined)?.targetId;
      if (typeof target === "string") this.pipe.fronted(target);
    }
    const out = { id: message.id, method: message.method, params: message.params ?? {}, sessionId: message.sessionId ?? this.root };
    return this.pipe.write(JSON.stringify(out));
  }

  /** Detaches every session of this channel (children first); nothing more is delivered. Idempotent. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const session of [...this.#sessions.keys()].reverse()) this.pipe.detach(session);
    this.pipe.detach(this.root);
    this.#sessions.clear();
    this.onClose();
  }

  /** @internal the pipe hands over a message for one of this channel's sessions. */
  deliver(message: Buffer, session: string): void {
    if (!this.#open) return;
    if (message.subarray(0, ATTACHED.length).equals(ATTACHED)) this.#adopt(message);
    else if (message.subarray(0, DETACHED.length).equals(DETACHED)) this.#release(message);
    if (session === this.root) {
      this.onMessage(Buffer.concat([message.subarray(0, message.length - TAIL_LENGTH), CLOSE_BRACE]));
    } else {
      this.onMessage(message);
    }
  }

  /** @internal the pipe ended, or the root session was detached by the browser. */
  ended(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const session of this.#sessions.keys()) this.pipe.unclaim(session, this);
    this.#sessions.clear();
    this.onClose();
  }

  #adopt(message: Buffer): void {
    const { sessionId, targetInfo } = (JSON.parse(message.toString("utf8")) as { params?: { sessionId?: unknown; targetInfo?: { targetId?: unknown } } }).params ?? {};
    if (typeof sessionId === "string" && this.pipe.claim(sessionId, this)) this.#sessions.set(sessionId, String(targetInfo?.targetId ?? ""));
  }

  #release(message: Buffer): void {
    const sessionId = (JSON.parse(message.toString("utf8")) as { params?: { sessionId?: unknown } }).params?.sessionId;
    if (typeof sessionId === "string" && this.#sessions.delete(sessionId)) this.pipe.unclaim(sessionId, this);
  }
}
