import type { CdpChannel, CdpPipe } from "./pipe.ts";

/**
 * A small CDP client on a channel of its own over the browser's pipe (pipe.ts), with flattened
 * target attachments (CDP's `sessionId` on each message; Vessel says attachment, a session being a
 * browser session). It is the service acting on its own browser
 * (warm-up, profiles, the live view, the download guard), invisible to the session's CDP clients:
 * the proxy's client counts never see it, and the method policy does not judge it.
 */

interface Incoming {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: unknown;
  sessionId?: string;
}

/** `attachmentId`: CDP's `sessionId` of the event, undefined for the browser's own. */
export type CdpHandler = (params: any, attachmentId: string | undefined) => void;

/** `{"method":"` — how Chromium begins every event it sends. */
const EVENT_PREFIX = Buffer.from('{"method":"', "latin1");
const QUOTE = 0x22;

/** A healthy browser answers any command we send within this; a hung one must not hang a request or a viewer. */
const COMMAND_TIMEOUT_MS = 10_000;

export class CdpError extends Error {
  constructor(method: string, message: string) {
    super(`${method}: ${message}`);
    this.name = "CdpError";
  }
}

export class CdpClient {
  #nextId = 1;
  readonly #pending = new Map<number, { method: string; resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  readonly #handlers = new Map<string, Set<CdpHandler>>();
  readonly closed: Promise<void>;

  private constructor(private readonly channel: CdpChannel) {
    this.closed = new Promise((resolve) => {
      channel.onClose = () => {
        const error = new Error("the browser connection closed");
        for (const p of this.#pending.values()) {
          clearTimeout(p.timer);
          p.reject(error);
        }
        this.#pending.clear();
        resolve();
      };
    });
    channel.onMessage = (data) => this.#receive(data);
  }

  /** A client on a new channel of `pipe`; rejects when the browser does not answer within `timeoutMs`. */
  static async open(pipe: CdpPipe, timeoutMs = 5_000): Promise<CdpClient> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CdpError("Target.attachToBrowserTarget", "timed out")), timeoutMs);
    });
    const opening = pipe.open();
    try {
      return new CdpClient(await Promise.race([opening, timeout]));
    } catch (err) {
      void opening.then(
        (channel) => channel.close(),
        () => {},
      );
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  get isOpen(): boolean {
    return this.channel.isOpen;
  }

  send<T = any>(method: string, params: object = {}, attachmentId?: string): Promise<T> {
    if (!this.isOpen) return Promise.reject(new Error("the browser connection is closed"));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new CdpError(method, "timed out"));
      }, COMMAND_TIMEOUT_MS);
      this.#pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      // An attachment this channel does not (or no longer) hold: answered as Chromium would.
      if (!this.channel.send({ id, method, params, ...(attachmentId ? { sessionId: attachmentId } : {}) })) {
        this.#pending.delete(id);
        clearTimeout(timer);
        reject(new CdpError(method, this.isOpen ? "Session with given id not found." : "the browser connection is closed"));
      }
    });
  }

  /** Fire and forget (acks, input): a failure only means the target went away, which events report. */
  post(method: string, params: object = {}, attachmentId?: string): void {
    this.send(method, params, attachmentId).catch(() => {});
  }

  on(method: string, handler: CdpHandler): () => void {
    let set = this.#handlers.get(method);
    if (!set) this.#handlers.set(method, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Resolves with the first event `method` whose params satisfy `match`; rejects after `timeoutMs`. */
  waitFor<T = any>(method: string, match: (params: T, attachmentId: string | undefined) => boolean, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new CdpError(method, "event did not arrive in time"));
      }, timeoutMs);
      const off = this.on(method, (params: T, attachmentId) => {
        if (!match(params, attachmentId)) return;
        clearTimeout(timer);
        off();
        resolve(params);
      });
      void this.closed.then(() => {
        clearTimeout(timer);
        off();
        reject(new Error("the browser connection closed"));
      });
    });
  }

  close(): void {
    this.channel.close();
  }

  #receive(data: Buffer): void {
    // An event nobody here listens to is not parsed (a session's log capture receives every Network and Page event of its pages).
    if (data.length > EVENT_PREFIX.length && data[2] === 0x6d && data.subarray(0, EVENT_PREFIX.length).equals(EVENT_PREFIX)) {
      const end = data.indexOf(QUOTE, EVENT_PREFIX.length);
      if (end > 0 && end < 128 && !this.#handlers.get(data.toString("latin1", EVENT_PREFIX.length, end))?.size) return;
    }
    let msg: Incoming;
    try {
      msg = JSON.parse(data.toString("utf8")) as Incoming;
    } catch {
      return;
    }
    if (msg.id !== undefined) {
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new CdpError(p.method, msg.error.message ?? "failed"));
      else p.resolve(msg.result);
    } else if (msg.method) {
      for (const h of this.#handlers.get(msg.method) ?? []) {
        try {
          h(msg.params, msg.sessionId);
        } catch {
          // A handler's fault must not stop the other handlers or the connection.
        }
      }
    }
  }
}
