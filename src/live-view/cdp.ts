import WebSocket from "ws";

/** What Chromium sends back: a reply to one of our commands, or an event (on a target's session when flattened). */
interface Incoming {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: unknown;
  sessionId?: string;
}

export type CdpEventHandler = (params: any, sessionId: string | undefined) => void;

/** Longer than any command the live view sends takes on a healthy browser; a hung browser must not hang a viewer. */
const COMMAND_TIMEOUT_MS = 10_000;

/**
 * A minimal CDP client over one WebSocket to a browser's endpoint, with flattened target sessions
 * (`sessionId` on each message). The live view talks to Chromium directly on loopback, never through
 * the /cdp proxy: it is the service watching its own browser, not a client of the session.
 */
export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private readonly handlers = new Map<string, Set<CdpEventHandler>>();
  private closedError: Error | undefined;
  readonly closed: Promise<void>;

  private constructor(private readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on("close", () => {
        this.closedError ??= new Error("the browser connection closed");
        for (const [, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(this.closedError);
        }
        this.pending.clear();
        resolve();
      });
    });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let msg: Incoming;
      try {
        msg = JSON.parse(data.toString()) as Incoming;
      } catch {
        return;
      }
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.error) p.reject(new Error(msg.error.message ?? "CDP error"));
        else p.resolve(msg.result);
      } else if (msg.method) {
        for (const h of this.handlers.get(msg.method) ?? []) h(msg.params, msg.sessionId);
      }
    });
    // `on`, not `once`: a reset while the browser exits can follow an earlier error.
    ws.on("error", (err) => {
      this.closedError ??= err;
    });
  }

  static connect(endpoint: string, timeoutMs = 5_000): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      // No compression: frames are JPEG already, and loopback is not the bottleneck.
      const ws = new WebSocket(endpoint, { handshakeTimeout: timeoutMs, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once("open", () => resolve(new CdpConnection(ws)));
      ws.once("error", reject);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send<T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (!this.isOpen) return Promise.reject(this.closedError ?? new Error("the browser connection is closed"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} timed out`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.ws.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    });
  }

  /** Fire and forget (acks, input): a failure only means the target went away, which events report. */
  post(method: string, params: object = {}, sessionId?: string): void {
    this.send(method, params, sessionId).catch(() => {});
  }

  on(method: string, handler: CdpEventHandler): () => void {
    let set = this.handlers.get(method);
    if (!set) this.handlers.set(method, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  close(): void {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.terminate();
  }
}
