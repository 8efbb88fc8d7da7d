import type { Logger } from "../../logger.ts";
import type { CdpChannel } from "../cdp/pipe/pipe.ts";
import { CloseCode, closeCodeForEnd, closeReason } from "../close-codes.ts";
import type { BrowserLease } from "../pool/types.ts";

export type EndCause =
  | { status: "TIMED_OUT"; reason: "TIMEOUT" | "IDLE_TIMEOUT" }
  | { status: "FAILED"; reason: "BROWSER_CRASH" }
  | { status: "RELEASED"; reason: "CLIENT_RELEASE" };

/** A live-view connection: told why (and with which close code, close-codes.ts) when its session ends. */
export interface Viewer {
  close(message: string, code: number): void;
}

/** A CDP client's connection: its WebSocket, or the relay host's client (browser/cdp/relay/host.ts RemoteClient). */
export interface ClientConnection {
  close(code: number, reason: string): void;
  terminate(): void;
  once(event: "close", listener: () => void): unknown;
}

/** A client that does not answer our close frame within this long is cut (a stop must not wait on it). */
const CLOSE_GRACE_MS = 2_000;
/** The most a session's finishers may hold up its browser's close (a hung browser must not keep it). */
const FINISH_MS = 3_000;

interface Running {
  lease: BrowserLease;
  /** The CDP clients' WebSockets: closed with a code that says why (close-codes.ts), never just cut. */
  sockets: Set<ClientConnection>;
  viewers: Set<Viewer>;
  /** CDP sockets taken (reserveClient): from an authorised handshake until its socket closes, before and after attach. */
  clientSlots: number;
  hardTimer: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  idleMs: number | null;
  ending: boolean;
  /**
   * A channel on the browser's pipe opened as the session started, for its first CDP client: its
   * handshake is then answered without waiting for the browser (an attach round trip).
   */
  channel?: CdpChannel;
  /** Run as the session ends, while its browser is still up: the node's own capture stopping (logs, recording). */
  finishers: Array<() => Promise<void>>;
}

/**
 * The sessions whose browsers run on this node: their leases, their open CDP sockets, and the
 * timers that end them (hard cap, idle). It decides nothing about the database: when a session must
 * end on its own (timeout, idle, crash) it calls `onEnd`, and the session service records it.
 */
export class SessionRuntime {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly opts: {
      log: Logger;
      onEnd: (sessionId: string, cause: EndCause) => Promise<void>;
      /** A CDP client connected or went away (the session's event stream records it). */
      onClient?: (sessionId: string, change: "connected" | "disconnected", clients: number) => void;
      /** Open a channel to each browser as its session starts, for its first CDP client; default true. */
      openChannelAhead?: boolean;
    },
  ) {}

  /** Starts tracking a session whose browser is `lease`, until `expiresAt` at the latest. */
  add(sessionId: string, lease: BrowserLease, expiresAt: Date, idleTimeoutSeconds: number | null, now: Date): void {
    const entry: Running = {
      lease,
      sockets: new Set(),
      viewers: new Set(),
      clientSlots: 0,
      hardTimer: setTimeout(() => this.fire(sessionId, { status: "TIMED_OUT", reason: "TIMEOUT" }), Math.max(0, expiresAt.getTime() - now.getTime())),
      idleMs: idleTimeoutSeconds === null ? null : idleTimeoutSeconds * 1000,
      ending: false,
      finishers: [],
    };
    this.running.set(sessionId, entry);
    this.armIdle(sessionId, entry);
    if (this.opts.openChannelAhead !== false) {
      const link = lease.cdp.link;
      if (link) {
        // The relay host opens it and keeps it; not before a profile going in is in place (browser/cdp/pipe/pipe.ts held).
        const held = lease.cdp.held;
        if (held)
          void held.then(
            () => link.openAhead(),
            () => {},
          );
        else link.openAhead();
      } else {
        lease.cdp.open().then(
          (channel) => {
            if (this.running.get(sessionId) === entry && !entry.ending) entry.channel = channel;
            else channel.close();
          },
          () => {}, // the browser is gone: its exit ends the session
        );
      }
    }
    void lease.exited.then(() => {
      // A browser that exits while its session is still live crashed (or was killed).
      if (this.running.get(sessionId) === entry && !entry.ending) void this.fire(sessionId, { status: "FAILED", reason: "BROWSER_CRASH" });
    });
  }

  /**
   * Runs `finish` when the session ends, after its clients are closed and before its browser is
   * (at most FINISH_MS for all of them): what the node itself captures from the browser stops
   * there. False when the session does not run here (any more).
   */
  addFinisher(sessionId: string, finish: () => Promise<void>): boolean {
    const entry = this.running.get(sessionId);
    if (!entry || entry.ending) return false;
    entry.finishers.push(finish);
    return true;
  }

  /** The browser endpoint of a session running here, or undefined. */
  endpoint(sessionId: string): BrowserLease | undefined {
    const entry = this.running.get(sessionId);
    return entry && !entry.ending ? entry.lease : undefined;
  }

  /** The channel opened as the session started, once (the first client's), or undefined (taken, not open yet, or closed). */
  takeChannel(sessionId: string): CdpChannel | undefined {
    const entry = this.running.get(sessionId);
    const channel = entry?.channel;
    if (!entry || !channel) return undefined;
    entry.channel = undefined;
    return channel.isOpen && !entry.ending ? channel : undefined;
  }

  /**
   * Takes one of the session's `max` CDP socket slots, as a handshake is authorised: taken and
   * counted in one synchronous step, so handshakes in flight together cannot all pass a check made
   * before any of them attached. Every socket of the session reaches this node (relayed ones
   * included, src/cluster/forward.ts), so the count is the session's. Returns the function that
   * gives the slot back (idempotent; call it on every way the socket ends), "full" when all are
   * taken, undefined when the session does not run here.
   */
  reserveClient(sessionId: string, max: number): (() => void) | "full" | undefined {
    const entry = this.running.get(sessionId);
    if (!entry || entry.ending) return undefined;
    if (entry.clientSlots >= max) return "full";
    entry.clientSlots += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      entry.clientSlots -= 1;
    };
  }

  /** A CDP client attached: the session is not idle while any client is connected. */
  attach(sessionId: string, socket: ClientConnection): boolean {
    const entry = this.running.get(sessionId);
    if (!entry || entry.ending) return false;
    entry.sockets.add(socket);
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    this.opts.onClient?.(sessionId, "connected", entry.sockets.size);
    socket.once("close", () => {
      entry.sockets.delete(socket);
      this.opts.onClient?.(sessionId, "disconnected", entry.sockets.size);
      if (this.running.get(sessionId) === entry) this.armIdle(sessionId, entry);
    });
    return true;
  }

  /**
   * A live viewer joined. Someone watching (often a person finishing a step by hand) keeps the
   * session from going idle, like a CDP client. Returns a function to call when the viewer leaves.
   */
  addViewer(sessionId: string, viewer: Viewer): (() => void) | undefined {
    const entry = this.running.get(sessionId);
    if (!entry || entry.ending) return undefined;
    entry.viewers.add(viewer);
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    return () => {
      if (!entry.viewers.delete(viewer)) return;
      if (this.running.get(sessionId) === entry) this.armIdle(sessionId, entry);
    };
  }

  /** The owner closed the live views (revocation): every viewer goes, the session keeps running. */
  closeViewers(sessionId: string, message: string): number {
    const entry = this.running.get(sessionId);
    if (!entry) return 0;
    const viewers = [...entry.viewers];
    entry.viewers.clear();
    for (const viewer of viewers) viewer.close(message, CloseCode.revoked);
    this.armIdle(sessionId, entry);
    return viewers.length;
  }

  viewerCount(sessionId: string): number {
    return this.running.get(sessionId)?.viewers.size ?? 0;
  }

  /** Activity without a socket (a keepalive): restarts the idle countdown. */
  touch(sessionId: string): void {
    const entry = this.running.get(sessionId);
    if (entry) this.armIdle(sessionId, entry);
  }

  clientCount(sessionId: string): number {
    return this.running.get(sessionId)?.sockets.size ?? 0;
  }

  /**
   * Stops tracking, closes every client socket and viewer with `code` (telling viewers `message`),
   * and ends the browser. The clients are closed before the browser goes, so the code they see is
   * why the session ended, not the browser's exit. Idempotent.
   */
  async teardown(sessionId: string, message = "The session has ended.", code: number = CloseCode.sessionEnded): Promise<void> {
    const entry = this.running.get(sessionId);
    if (!entry) return;
    entry.ending = true;
    this.running.delete(sessionId);
    entry.lease.ending();
    clearTimeout(entry.hardTimer);
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    // From here on the session is no longer offered (endpoint() is undefined). What follows (its
    // sockets' close frames, the capture stopping and writing its last log entries, the browser's
    // close) starts on the next turn of the event loop: the call that ended the session has its
    // answer written first. Run in the same turn, the log's last write alone (a statement on the
    // embedded database, in this thread) held up a release's 204 by about a millisecond.
    await new Promise((resolve) => setImmediate(resolve));
    for (const socket of entry.sockets) {
      socket.close(code, closeReason(code));
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    }
    entry.channel?.close();
    for (const viewer of entry.viewers) viewer.close(message, code);
    entry.viewers.clear();
    if (entry.finishers.length > 0) await this.finish(sessionId, entry.finishers);
    await entry.lease.release();
  }

  private async finish(sessionId: string, finishers: Array<() => Promise<void>>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, FINISH_MS)));
    const done = Promise.all(
      finishers.map((f) => f().catch((err: unknown) => this.opts.log.warn({ err, sessionId }, "a session's capture did not stop cleanly"))),
    );
    await Promise.race([done, late]);
    clearTimeout(timer);
  }

  ids(): string[] {
    return [...this.running.keys()];
  }

  private armIdle(sessionId: string, entry: Running): void {
    if (entry.idleMs === null || entry.sockets.size > 0 || entry.viewers.size > 0 || entry.ending) return;
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => this.fire(sessionId, { status: "TIMED_OUT", reason: "IDLE_TIMEOUT" }), entry.idleMs);
  }

  /**
   * A client closed the browser (`Browser.close`, what Puppeteer's `browser.close()` sends): the
   * session is released as if by `REQUEST_RELEASE`, not failed as a crash.
   */
  releasedByClient(sessionId: string): void {
    void this.fire(sessionId, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  }

  private async fire(sessionId: string, cause: EndCause): Promise<void> {
    const entry = this.running.get(sessionId);
    if (!entry || entry.ending) return;
    try {
      await this.opts.onEnd(sessionId, cause);
    } catch (err) {
      this.opts.log.error({ err, sessionId, cause }, "could not end a session");
      await this.teardown(sessionId, undefined, closeCodeForEnd(cause.reason));
    }
  }
}
