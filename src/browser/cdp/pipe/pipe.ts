import type { Readable, Writable } from "node:stream";
import { CdpChannel } from "./channel.ts";
import { CdpCallError, CdpPipeClosed, nulFramed, attachmentOf } from "./wire.ts";
import type { RelayLink } from "./relay-link.ts";

export { CdpCallError, CdpChannel, CdpPipeClosed };

/**
 * The one connection to a browser: Chromium's `--remote-debugging-pipe` (fd 3 into the browser,
 * fd 4 out of it; each message is JSON followed by a NUL byte). Chromium then opens no DevTools
 * port at all, so nothing on the machine (another session's page, a local process) can reach the
 * browser except through this process (docs/threat-model.md).
 *
 * Many users share the pipe (every CDP client of the session, the live view, the download guard,
 * profiles, the watchdog). Each gets a channel: a browser-level CDP attachment of its own (what CDP
 * calls a session, with its `sessionId`; in Vessel a session is a browser session only)
 * (`Target.attachToBrowserTarget`, or `Target.attachToTarget` for a page endpoint), which Chromium
 * keeps apart from the others exactly as it keeps two WebSocket connections apart: its own enabled
 * domains, its own auto-attach, its own child attachments. A channel's messages go out with its root
 * attachment id added, and come back with it removed, so its user speaks plain browser-level CDP.
 *
 * Routing Chromium's messages costs no parse: Chromium writes an attachment's message as
 * `{…,"sessionId":"<32 hex>"}`, the id always last, so the tail names the attachment. Only the few
 * messages that change which attachments a channel owns (`Target.attachedToTarget` and
 * `Target.detachedFromTarget`, recognised by their first bytes) and the pipe's own answers are parsed.
 */

export type { PipeMessage } from "./channel.ts";

/** How long a call of the pipe's own (attach, detach, version, close) may take before it fails. */
const ROOT_CALL_TIMEOUT_MS = 10_000;
/** How many recently driven pages the pipe remembers (a session with more tabs falls back to the page loaded last). */
const RECENT_TARGETS = 32;

interface RootCall {
  method: string;
  resolve(result: any): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class CdpPipe {
  /** Resolves once the pipe has ended (the browser exited or closed its end). */
  readonly closed: Promise<void>;
  /** performance.now() of the last message from the browser (the watchdog's measure of life). */
  lastMessageAt = performance.now();
  readonly #owners = new Map<string, CdpChannel>();
  readonly #calls = new Map<number, RootCall>();
  readonly #front = new Set<(targetId: string) => void>();
  /** The pages brought to the front or driven, most recent last (a closed one stays until it ages out). */
  readonly #recent: string[] = [];
  #nextId: number;
  #open = true;
  #corked = false;
  /** While set, channels opened wait for it, and are refused when it fails (browser/profiles/restore.ts: a browser being prepared). */
  held: Promise<void> | undefined;
  /**
   * Set when the browser's pipe is owned by the relay host (browser/cdp/relay/host.ts): this pipe is then the
   * node's link to it, and the host's own messages (`{"vessel":…}`, never Chromium's) go to `onControl`.
   */
  link: RelayLink | undefined;
  /**
   * Until this time (ms since the epoch), the relay keeps request bodies (`postData`) from the
   * session's CDP clients (relay/withheld-post-data.ts): the server has just filled a form, and its
   * submission would otherwise show them what was typed.
   */
  withholdPostDataUntil = 0;
  onControl: ((message: Record<string, unknown>) => void) | undefined;
  readonly #end: () => void;

  /**
   * Reads `input` when given; without it, the owner hands over each message (`receive`) and the end
   * (`finish`): the relay host's mux (browser/cdp/relay/mux.ts), which shares one browser pipe with the node.
   * `firstCallId` keeps the pipe's own call ids apart from another pipe's on the same browser.
   */
  constructor(
    private readonly out: Writable,
    input?: Readable,
    options: { firstCallId?: number } = {},
  ) {
    this.#nextId = options.firstCallId ?? 1;
    let done!: () => void;
    this.closed = new Promise((resolve) => (done = resolve));
    this.#end = () => {
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
    if (input) {
      const read = nulFramed((message) => this.receive(message));
      input.on("data", (chunk: Buffer) => {
        this.lastMessageAt = performance.now();
        read(chunk);
      });
      input.once("end", this.#end);
      input.once("close", this.#end);
      input.on("error", this.#end);
    }
    // The browser's answers may still be on their way when its input side breaks (EPIPE): the pipe
    // ends with the output side, and writes after a break simply fail.
    out.on("error", () => {});
  }

  /** The browser's output has ended (for a pipe without `input`). */
  finish(): void {
    this.#end();
  }

  /**
   * Hands a message of `attachmentId` (read off its tail) to the channel holding that attachment;
   * false when none does here (the relay host's mux then sends it to the node).
   */
  receiveFor(attachmentId: string, message: Buffer): boolean {
    const channel = this.#owners.get(attachmentId);
    if (!channel) return false;
    channel.deliver(message, attachmentId);
    return true;
  }

  /** Whether a channel of this pipe holds `attachmentId` (the relay host's mux routes by it). */
  holds(attachmentId: string): boolean {
    return this.#owners.has(attachmentId);
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** How many channels are open on the pipe (each is a user: a client, the live view, the guard). */
  get channels(): number {
    let n = 0;
    for (const [attachment, channel] of this.#owners) if (channel.root === attachment) n++;
    return n;
  }

  /** A browser-level channel of its own (a `Target.attachToBrowserTarget` attachment). */
  async open(): Promise<CdpChannel> {
    if (this.held) await this.held;
    const { sessionId } = await this.call<{ sessionId: string }>("Target.attachToBrowserTarget");
    return this.#channel(sessionId);
  }

  /** A channel whose root is the target `targetId` (a page endpoint: page-level CDP without attachment ids). */
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

  /** @internal a channel sent a command that brings `targetId` to the front or drives it. */
  fronted(targetId: string): void {
    const at = this.#recent.indexOf(targetId);
    if (at >= 0) this.#recent.splice(at, 1);
    this.#recent.push(targetId);
    if (this.#recent.length > RECENT_TARGETS) this.#recent.shift();
    for (const listener of this.#front) listener(targetId);
  }

  /** The page last brought to the front or driven by any user of the pipe (it may have closed since); undefined before any. */
  get activeTarget(): string | undefined {
    return this.#recent.at(-1);
  }

  /** The pages brought to the front or driven, most recent first (some may have closed since): when the active one closes, the next open one takes over. */
  get recentTargets(): readonly string[] {
    return this.#recent.toReversed();
  }

  /** A command of the pipe's own, outside any attachment (the browser's version, its close, attaches). */
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
    // The messages written in one turn (a client's pipelined burst, judged one by one) leave in one
    // system call when the turn ends, not one each.
    if (!this.#corked) {
      this.#corked = true;
      this.out.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.out.uncork();
      });
    }
    this.out.write(typeof json === "string" ? json + "\0" : json);
    return true;
  }

  /** @internal detaches an attachment, answer ignored (it may be gone already). */
  detach(attachmentId: string): void {
    this.#owners.delete(attachmentId);
    if (this.#open) this.call("Target.detachFromTarget", { sessionId: attachmentId }).catch(() => {});
  }

  /** @internal an attachment made by `channel`; false if another channel holds it already. */
  claim(attachmentId: string, channel: CdpChannel): boolean {
    const owner = this.#owners.get(attachmentId);
    if (owner && owner !== channel) return false;
    this.#owners.set(attachmentId, channel);
    return true;
  }

  /** @internal */
  unclaim(attachmentId: string, channel: CdpChannel): void {
    if (this.#owners.get(attachmentId) === channel) this.#owners.delete(attachmentId);
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

  /** One whole message from the browser (its NUL removed). */
  receive(message: Buffer): void {
    const attachment = attachmentOf(message);
    if (attachment !== undefined) {
      this.#owners.get(attachment)?.deliver(message, attachment);
      return; // an attachment no channel holds any more: its user has gone
    }
    let parsed: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: { sessionId?: string } };
    try {
      parsed = JSON.parse(message.toString("utf8"));
    } catch {
      return;
    }
    if ("vessel" in parsed) {
      this.onControl?.(parsed as Record<string, unknown>);
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
      // A root attachment detached by the browser (its target closed): that channel is over.
      const channel = this.#owners.get(parsed.params.sessionId);
      if (channel?.root === parsed.params.sessionId) {
        this.#owners.delete(parsed.params.sessionId);
        channel.ended();
      }
    }
  }
}
