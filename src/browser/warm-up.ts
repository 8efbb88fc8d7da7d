import WebSocket from "ws";

/**
 * Readies a freshly launched browser's profile before a session gets it. Chromium creates some of
 * its profile stores on first use, and the first use is the client's first navigation: the cookie
 * database (SQLite: a dozen fdatasyncs on a disk-backed folder) and the HTTP cache's index. Measured
 * on this project's machine, that made the first `goto` in a fresh browser ~20 ms slower than in a
 * browser that had already navigated once (bench/sessions). Opening them here moves that cost to
 * the spare's idle time.
 *
 * What a client can see afterwards is what it saw before: the same single about:blank page, no
 * cookies, an empty cache. (A blank page or a new tab would not help: neither touches the network.)
 */
export async function warmUpProfile(wsEndpoint: string, timeoutMs = 5_000): Promise<void> {
  const cdp = await CdpConnection.open(wsEndpoint, timeoutMs);
  try {
    // The cookie store loads (here: creates its database) before it answers.
    await cdp.send("Storage.getCookies");
    // The HTTP cache's backend is created on first use; clearing the (empty) cache is a use.
    // Network.* needs a page: the browser's own about:blank, attached to for this call only.
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
    const page = targetInfos.find((t) => t.type === "page");
    if (page) {
      const { sessionId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true });
      await cdp.send("Network.clearBrowserCache", {}, sessionId);
      await cdp.send("Target.detachFromTarget", { sessionId });
    }
  } finally {
    cdp.close();
  }
}

/** The few CDP calls above on one short-lived connection; any error or the deadline fails them all. */
class CdpConnection {
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly ws: WebSocket,
    private readonly timer: NodeJS.Timeout,
  ) {
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = msg.id === undefined ? undefined : this.#pending.get(msg.id);
      if (!waiter) return; // events
      this.#pending.delete(msg.id!);
      if (msg.error) waiter.reject(new Error(`CDP: ${msg.error.message}`));
      else waiter.resolve(msg.result);
    });
    ws.on("close", () => this.#failAll(new Error("CDP connection closed")));
  }

  static open(url: string, timeoutMs: number): Promise<CdpConnection> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      const fail = (err: Error) => {
        connection.#failAll(err);
        reject(err); // no effect once open
      };
      const timer = setTimeout(() => {
        ws.terminate();
        fail(new Error(`the browser warm-up took longer than ${timeoutMs} ms`));
      }, timeoutMs);
      const connection = new CdpConnection(ws, timer);
      // `on`, not `once`: a second 'error' without a listener would be an uncaught exception.
      ws.on("error", fail);
      ws.once("open", () => resolve(connection));
    });
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    });
  }

  close(): void {
    clearTimeout(this.timer);
    this.ws.close();
  }

  #failAll(err: Error): void {
    for (const waiter of this.#pending.values()) waiter.reject(err);
    this.#pending.clear();
  }
}
