import type { Readable, Writable } from "node:stream";
import { CdpCallError, CdpPipeClosed, sessionOf, TAIL_LENGTH } from "./cdp-wire.ts";

export { CdpCallError, CdpPipeClosed };

/**
 * The one connection to a browser: Chromium's `--remote-debugging-pipe` (fd 3 into the browser,
 * fd 4 out of it; each message is JSON followed by a NUL byte). Chromium then opens no DevTools
 * port at all, so nothing on the machine (another session's page, a local process) can reach the
 * browser except through this process (docs/threat-model.md).
 *
 * Many users share the pipe (every CDP client of the session, the live view, the download guard,
 * profiles, the watchdog). Each gets a channel: a browser-level CDP session of its own
 * (`Target.attachToBrowserTarget`, or `Target.attachToTarget` for a page endpoint), which Chromium
 * keeps apart from the others exactly as it keeps two WebSocket connections apart: its own enabled
 * domains, its own auto-attach, its own child sessions. A channel's messages go out with its root
 * session id added, and come back with it removed, so its user speaks plain browser-level CDP.
 *
 * Routing Chromium's messages costs no parse: Chromium writes a session's message as
 * `{…,"sessionId":"<32 hex>"}`, the id always last, so the tail names the session. Only the few
 * messages that change which sessions a channel owns (`Target.attachedToTarget` and
 * `Target.detachedFromTarget`, recognised by their first bytes) and the pipe's own answers are parsed.
 */

export type PipeMessage = Buffer;

const ATTACHED = Buffer.from('{"method":"Target.attachedToTarget"', "latin1");
const DETACHED = Buffer.from('{"method":"Target.detachedFromTarget"', "latin1");
const CLOSE_BRACE = Buffer.from("}", "latin1");
/** Commands that bring a page to the front: the pipe tells its listeners (onFront). */
const FRONT = new Set(["Target.activateTarget", "Page.bringToFront"]);

/** How long a call of the pipe's own (attach, detach, version, close) may take before it fails. */
const ROOT_CALL_TIMEOUT_MS = 10_000;

interface RootCall {
  method: string;
  resolve(result: any): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

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
    readonly pipe: CdpPipe,
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

export class CdpPipe {
  /** Resolves once the pipe has ended (the browser exited or closed its end). */
  readonly closed: Promise<void>;
  /** performance.now() of the last message from the browser (the watchdog's measure of life). */
  lastMessageAt = performance.now();
  readonly #owners = new Map<string, CdpChannel>();
  readonly #calls = new Map<number, RootCall>();
  readonly #front = new Set<(targetId: string) => void>();
  #nextId = 1;
  #open = true;
  #partial: Buffer[] = [];
  /** While set, channels opened wait for it, and are refused when it fails (profile-restore.ts: a browser being prepared). */
  held: Promise<void> | undefined;

  constructor(
    private readonly out: Writable,
    input: Readable,
  ) {
    let done!: () => void;
    this.closed = new Promise((resolve) => (done = resolve));
    const end = () => {
      if (!this.#open) return;
      this.#open = false;
      for (const call of this.#calls.values()) {
        clearTimeout(call.timer);
        call.reject(new CdpPipeClosed());
      }
      this.#calls.clear();
      for (const channel of new Set(this.#owners.values())) channel.ended();
      this.#owners.clear();
      done();
    };
    input.on("data", (chunk: Buffer) => this.#read(chunk));
    input.once("end", end);
    input.once("close", end);
    input.on("error", end);
    // The browser's answers may still be on their way when its input side breaks (EPIPE): the pipe
    // ends with the output side, and writes after a break simply fail.
    out.on("error", () => {});
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** How many channels are open on the pipe (each is a user: a client, the live view, the guard). */
  get channels(): number {
    let n = 0;
    for (const [session, channel] of this.#owners) if (channel.root === session) n++;
    return n;
  }

  /** A browser-level channel of its own (a `Target.attachToBrowserTarget` session). */
  async open(): Promise<CdpChannel> {
    if (this.held) await this.held;
    const { sessionId } = await this.call<{ sessionId: string }>("Target.attachToBrowserTarget");
    return this.#channel(sessionId);
  }

  /** A channel whose root is the target `targetId` (a page endpoint: page-level CDP without session ids). */
  async openTarget(targetId: string): Promise<CdpChannel> {
    if (this.held) await this.held;
    const { sessionId } = await this.call<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
    return this.#channel(sessionId, targetId);
  }

  /** Tells `listener` of each page any user of the pipe brings to the front (the screen recorder follows it); answers the unsubscribe. */
  onFront(listener: (targetId: string) => void): () => void {
    this.#front.add(listener);
    return () => void this.#front.delete(listener);
  }

  /** @internal a channel sent a command that brings `targetId` to the front. */
  fronted(targetId: string): void {
    for (const listener of this.#front) listener(targetId);
  }

  /** A command of the pipe's own, outside any session (the browser's version, its close, attaches). */
  call<T = any>(method: string, params: object = {}, timeoutMs = ROOT_CALL_TIMEOUT_MS): Promise<T> {
    if (!this.#open) return Promise.reject(new CdpPipeClosed());
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#calls.delete(id);
        reject(new CdpCallError(method, "timed out"));
      }, timeoutMs);
      this.#calls.set(id, { method, resolve, reject, timer });
      this.write(JSON.stringify({ id, method, params }));
    });
  }

  /** @internal writes one message (bytes: with their NUL already); false once the pipe has ended. */
  write(json: string | Buffer): boolean {
    if (!this.#open || !this.out.writable) return false;
    this.out.write(typeof json === "string" ? json + "\0" : json);
    return true;
  }

  /** @internal detaches a session, answer ignored (it may be gone already). */
  detach(sessionId: string): void {
    this.#owners.delete(sessionId);
    if (this.#open) this.call("Target.detachFromTarget", { sessionId }).catch(() => {});
  }

  /** @internal a session attached by `channel`; false if another channel holds it already. */
  claim(sessionId: string, channel: CdpChannel): boolean {
    const owner = this.#owners.get(sessionId);
    if (owner && owner !== channel) return false;
    this.#owners.set(sessionId, channel);
    return true;
  }

  /** @internal */
  unclaim(sessionId: string, channel: CdpChannel): void {
    if (this.#owners.get(sessionId) === channel) this.#owners.delete(sessionId);
  }

  #channel(root: string, target?: string): CdpChannel {
    const channel = new CdpChannel(this, root, target);
    if (!this.#open) {
      channel.ended();
      return channel;
    }
    this.#owners.set(root, channel);
    return channel;
  }

  #read(chunk: Buffer): void {
    this.lastMessageAt = performance.now();
    let start = 0;
    for (let nul = chunk.indexOf(0); nul !== -1; nul = chunk.indexOf(0, start)) {
      const piece = chunk.subarray(start, nul);
      const message = this.#partial.length === 0 ? piece : Buffer.concat([...this.#partial, piece]);
      this.#partial = [];
      start = nul + 1;
      this.#route(message);
    }
    // Pieces of a message that goes on in a later chunk: joined once, when its end arrives.
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
  }

  #route(message: Buffer): void {
    const session = sessionOf(message);
    if (session !== undefined) {
      this.#owners.get(session)?.deliver(message, session);
      return; // a session no channel holds any more: its user has gone
    }
    let parsed: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: { sessionId?: string } };
    try {
      parsed = JSON.parse(message.toString("utf8"));
    } catch {
      return;
    }
    if (typeof parsed.id === "number") {
      const call = this.#calls.get(parsed.id);
      if (!call) return;
      this.#calls.delete(parsed.id);
      clearTimeout(call.timer);
      if (parsed.error) call.reject(new CdpCallError(call.method, parsed.error.message ?? "failed"));
      else call.resolve(parsed.result);
    } else if (parsed.method === "Target.detachedFromTarget" && typeof parsed.params?.sessionId === "string") {
      // A root session detached by the browser (its target closed): that channel is over.
      const channel = this.#owners.get(parsed.params.sessionId);
      if (channel?.root === parsed.params.sessionId) {
        this.#owners.delete(parsed.params.sessionId);
        channel.ended();
      }
    }
  }
}
