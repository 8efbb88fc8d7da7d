import WebSocket from "ws";

/**
 * A small CDP client over one WebSocket to a browser's own endpoint (loopback, never the /cdp
 * proxy), with flattened target sessions (`sessionId` on each message). It is the service acting
 * on its own browser (warm-up, profiles, the live view, the download guard), invisible to the
 * session's CDP clients: the proxy's client counts never see it.
 */

interface Incoming {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: unknown;
  sessionId?: string;
}

export type CdpHandler = (params: any, sessionId: string | undefined) => void;

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
  #closedError: Error | undefined;
  readonly closed: Promise<void>;

  private constructor(private readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on("close", () => {
        this.#closedError ??= new Error("the browser connection closed");
        for (const p of this.#pending.values()) {
          clearTimeout(p.timer);
          p.reject(this.#closedError);
        }
        this.#pending.clear();
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
    });
    ws.on("error", (err) => {
      this.#closedError ??= err;
    });
  }

  static connect(endpoint: string, timeoutMs = 5_000): Promise<CdpClient> {
    return new Promise((resolve, reject) => {
      // Profiles can be megabytes in one evaluate and screencast frames are JPEG already;
      // loopback makes compression pointless.
      const ws = new WebSocket(endpoint, { handshakeTimeout: timeoutMs, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once("open", () => {
        ws.removeListener("error", reject);
        resolve(new CdpClient(ws));
      });
      ws.once("error", reject);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send<T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (!this.isOpen) return Promise.reject(this.#closedError ?? new Error("the browser connection is closed"));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new CdpError(method, "timed out"));
      }, COMMAND_TIMEOUT_MS);
      this.#pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      this.ws.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    });
  }

  /** Fire and forget (acks, input): a failure only means the target went away, which events report. */
  post(method: string, params: object = {}, sessionId?: string): void {
    this.send(method, params, sessionId).catch(() => {});
  }

  on(method: string, handler: CdpHandler): () => void {
    let set = this.#handlers.get(method);
    if (!set) this.#handlers.set(method, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Resolves with the first event `method` whose params satisfy `match`; rejects after `timeoutMs`. */
  waitFor<T = any>(method: string, match: (params: T, sessionId: string | undefined) => boolean, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new CdpError(method, "event did not arrive in time"));
      }, timeoutMs);
      const off = this.on(method, (params: T, sessionId) => {
        if (!match(params, sessionId)) return;
        clearTimeout(timer);
        off();
        resolve(params);
      });
      void this.closed.then(() => {
        clearTimeout(timer);
        off();
        reject(this.#closedError ?? new Error("the browser connection closed"));
      });
    });
  }

  close(): void {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.terminate();
  }
}
