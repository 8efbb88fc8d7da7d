import { ulid } from "../ids.ts";
import WebSocket from "ws";
import type { ConnectClaims } from "../auth/connect-tokens.ts";
import type { BrowserLease } from "../browser/pool/types.ts";
import type { Session } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { AppDeps } from "../kernel/context.ts";
import { CdpClient } from "../browser/cdp/pipe/client.ts";
import { toCdpInput } from "./input.ts";
import { phoneFitter } from "./phone-fit.ts";
import { CLOSE_GOING_AWAY, CLOSE_POLICY, CLOSE_RETRY, CLOSE_REVOKED, frameBounds, inputTypes, type ClientMessage, type InputMessage } from "./protocol.ts";
import { RateLimit } from "./rate-limit.ts";
import { Screencast } from "./screencast.ts";
import { Tabs } from "./tabs.ts";

/** Frames sent and not yet drawn by the page before the next one waits (see Screencast). */
const MAX_FRAMES_OUTSTANDING = 3;
/** Bytes queued on the socket before the next frame waits, whatever the page says it drew. */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;
/** When the browser connection drops, the runtime usually explains why (the session ended) within this. */
const BROWSER_LOST_GRACE_MS = 1_000;
const MAX_USER_AGENT = 200;
/** Re-sizes and tab switches each restart a screencast: 10 at once, then 2 a second. */
const CONTROL_PER_SECOND = 2;

export interface ViewerSetup {
  deps: AppDeps;
  ws: WebSocket;
  session: Session;
  claims: ConnectClaims;
  lease: BrowserLease;
  userAgent: string;
  viewport: { w: number; h: number; dpr: number };
}

type CloseReason = "viewer_left" | "session_ended" | "revoked" | "protocol" | "browser_lost" | "server_stopping";

/**
 * One person watching a session: their socket, a CDP connection of their own to the session's
 * browser, the tab list, the screencast of the tab on show, and (in interactive mode) their input.
 * Several viewers of one session each get their own screencast; Chromium serves concurrent
 * screencasts of a tab independently (checked in the e2e test).
 */
export class Viewer {
  readonly id = `vwr_${ulid()}`;
  private cdp: CdpClient | undefined;
  private screencast: Screencast | undefined;
  private tabs: Tabs | undefined;
  private leave: (() => void) | undefined;
  /** Frames on their way to the page or not drawn yet, oldest first. */
  private readonly outstanding: number[] = [];
  private closed = false;
  private ready = false;
  /** The person picked a tab: new tabs no longer take the view over. */
  private pinned = false;
  private offFront: (() => void) | undefined;
  private lastTabs = "";
  private readonly opened = Date.now();
  private readonly log: Logger;
  /** Caps on what one page can make us do: any message, input events, re-sizes and tab switches (each restarts a screencast), Done (each is a database write). */
  private readonly messages = new RateLimit(1000, 500);
  private readonly input = new RateLimit(400, 200);
  private readonly control = new RateLimit(10, CONTROL_PER_SECOND);
  private pendingSize: { w: number; h: number; dpr: number } | undefined;
  private sizeTimer: NodeJS.Timeout | undefined;
  private readonly doneLimit = new RateLimit(3, 0.5);
  private heartbeat: NodeJS.Timeout | undefined;
  private alive = true;
  private viewport: { w: number; h: number; dpr: number };

  constructor(private readonly s: ViewerSetup) {
    this.log = s.deps.log.child({ component: "live-view", sessionId: s.session.id, viewerId: this.id });
    this.viewport = s.viewport;
  }

  get sessionId(): string {
    return this.s.session.id;
  }

  /** The live-view generation the viewer's link was minted under (recheck.ts compares it with the session's). */
  get generation(): number {
    return this.s.claims.generation;
  }

  /** Joins the session (false when it is not running here any more) and starts the picture. */
  async start(): Promise<boolean> {
    const { deps, session, ws } = this.s;
    const leave = deps.runtime.addViewer(session.id, {
      // The code says why (browser/close-codes.ts): revoked, the session ended, its browser crashed, the node stops.
      close: (message, code) => this.end(code === CLOSE_REVOKED ? "revoked" : code === CLOSE_GOING_AWAY ? "server_stopping" : "session_ended", message, code),
    });
    if (!leave) return false;
    this.leave = leave;
    void deps.events.record(session.id, "live_view.opened", { ...this.who(), interactive: session.liveViewInteractive });
    ws.on("close", (code) => this.cleanup("viewer_left", code));
    ws.on("pong", () => (this.alive = true));
    this.heartbeat = setInterval(() => {
      if (!this.alive) return void ws.terminate();
      this.alive = false;
      ws.ping();
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    this.send({
      t: "hello",
      viewer: this.id,
      session: session.id,
      interactive: session.liveViewInteractive,
      instructions: session.liveViewInstructions,
      expiresAt: session.expiresAt.toISOString(),
      now: deps.now().toISOString(),
    });
    try {
      await this.connectBrowser();
    } catch (err) {
      if (!this.closed) {
        this.log.warn({ err }, "live view: could not reach the session's browser");
        this.end("browser_lost", "The session's browser is not answering. Retrying…", CLOSE_RETRY);
      }
      return true;
    }
    this.ready = true;
    return true;
  }

  /** One validated message from the page. */
  handle(msg: ClientMessage): void {
    if (this.closed || !this.leave) return;
    if (!this.messages.take()) return this.end("protocol", "The live view sent too many messages.", CLOSE_POLICY);
    if (inputTypes.has(msg.t)) return this.handleInput(msg as InputMessage);
    if (msg.t === "size") return this.requestSize({ w: msg.w, h: msg.h, dpr: msg.dpr });
    if (msg.t === "tab" && !this.control.take()) return;
    switch (msg.t) {
      case "ack":
        // Acks are cumulative; one for a frame never sent clears nothing more than what was sent.
        while (this.outstanding.length > 0 && this.outstanding[0]! <= msg.n) this.outstanding.shift();
        this.screencast?.viewerReady();
        return;
      case "tab":
        if (!this.tabs?.has(msg.id)) return;
        this.pinned = true;
        this.cdp?.post("Target.activateTarget", { targetId: msg.id });
        this.showTab(msg.id);
        return;
      case "done":
        return void this.done();
    }
  }

  /**
   * A size is state, not an action: over the rate, the latest one waits for the next token instead
   * of being dropped (dropping it left the picture sized for a window the viewer no longer had).
   */
  private requestSize(size: { w: number; h: number; dpr: number }): void {
    this.pendingSize = size;
    if (this.sizeTimer) return;
    const apply = () => {
      this.sizeTimer = undefined;
      const next = this.pendingSize;
      if (this.closed || !next) return;
      if (!this.control.take()) {
        this.sizeTimer = setTimeout(apply, 1000 / CONTROL_PER_SECOND);
        return;
      }
      this.pendingSize = undefined;
      this.viewport = next;
      void this.screencast?.resize(frameBounds(next.w, next.h, next.dpr)).catch(() => {});
    };
    apply();
  }

  /** Ends the view for a reason the page shows (its last message), then closes the socket with `code`. */
  end(reason: CloseReason, message: string, code: number): void {
    if (this.closed) return;
    this.send({ t: "end", reason, message });
    this.cleanup(reason, code);
    this.s.ws.close(code, reason);
  }

  private handleInput(msg: InputMessage): void {
    // Never trust the page: a view-only link forwards nothing, whatever the socket says.
    if (!this.s.session.liveViewInteractive || !this.ready) return;
    if (!this.input.take()) return;
    const screencast = this.screencast;
    const target = screencast?.attachment;
    if (!screencast || !target) return;
    const f = msg.t === "mouse" || msg.t === "wheel" ? msg.f : undefined;
    const command = toCdpInput(msg, screencast.metadataFor(f));
    if (command) this.cdp?.post(command.method, command.params, target);
  }

  private async done(): Promise<void> {
    if (!this.s.session.liveViewInteractive) {
      return this.send({ t: "done", ok: false, message: "This live view is view only." });
    }
    if (!this.doneLimit.take()) return this.send({ t: "done", ok: false, message: "Already sent; wait a moment before sending again." });
    const recorded = await this.s.deps.events.record(this.sessionId, "live_view.done", this.who());
    this.send(
      recorded
        ? { t: "done", ok: true, at: recorded.createdAt.toISOString() }
        : { t: "done", ok: false, message: "Done could not be recorded; please click it again." },
    );
  }

  private async connectBrowser(): Promise<void> {
    const cdp = await CdpClient.open(this.s.lease.cdp);
    if (this.closed) return cdp.close();
    this.cdp = cdp;
    void cdp.closed.then(() => {
      if (this.closed) return;
      // The runtime's own message (the session ended) wins when it comes.
      setTimeout(() => this.end("browser_lost", "The connection to the session's browser was lost. Reconnecting…", CLOSE_RETRY), BROWSER_LOST_GRACE_MS).unref();
    });
    const link = {
      ready: () => this.outstanding.length < MAX_FRAMES_OUTSTANDING && this.s.ws.bufferedAmount < MAX_BUFFERED_BYTES,
      deliver: (frame: Buffer) => {
        this.outstanding.push(frame.readUInt32BE(0));
        // Written to the socket: the link may have room again even without an ack.
        this.s.ws.send(frame, { binary: true }, () => this.screencast?.viewerReady());
      },
    };
    const fit = phoneFitter(cdp, () => this.viewport, { interactive: this.s.session.liveViewInteractive, browser: this.s.session.browser });
    this.screencast = new Screencast(cdp, link, this.log, frameBounds(this.viewport.w, this.viewport.h, this.viewport.dpr), (lost) => this.tabLost(lost), fit);
    this.tabs = new Tabs(cdp, {
      changed: () => this.sendTabs(),
      created: (id) => {
        // A tab the agent opens while someone watches (a login popup, say) is where the action is.
        if (this.ready && !this.pinned) this.showTab(id);
      },
      destroyed: (id) => this.tabLost(id),
    });
    await this.tabs.start();
    // One active tab for the live view, the recording and the session's `page`: the one a client
    // last brought to the front or drove (browser/cdp/pipe/channel.ts FRONT), followed unless the person picked one.
    this.offFront = this.s.lease.cdp.onFront((id) => {
      if (this.ready && !this.pinned && this.tabs?.has(id) && this.screencast?.target !== id) this.showTab(id);
    });
    const first = await this.tabs.mostRecent(this.s.lease.cdp.recentTargets);
    this.sendTabs(first);
    // A tab that closes right now is reported by discovery, which moves the view on (tabLost).
    if (first) await this.screencast.show(first).catch((err: unknown) => this.log.debug({ err }, "live view: could not show the first tab"));
  }

  private showTab(id: string): void {
    if (!this.screencast) return;
    this.sendTabs(id);
    this.screencast.show(id).catch((err: unknown) => this.log.debug({ err }, "live view: could not show a tab"));
  }

  private tabLost(id: string): void {
    if (this.closed || !this.screencast || !this.tabs) return;
    if (this.screencast.target !== undefined && this.screencast.target !== id) return;
    void this.tabs.mostRecent(this.s.lease.cdp.recentTargets, id).then((next) => {
      if (next) this.showTab(next);
      else this.sendTabs();
    });
  }

  private sendTabs(active = this.screencast?.target): void {
    if (!this.tabs) return;
    const message = JSON.stringify({ t: "tabs", tabs: this.tabs.list(), active: active ?? null });
    if (message === this.lastTabs) return;
    this.lastTabs = message;
    if (this.s.ws.readyState === WebSocket.OPEN) this.s.ws.send(message);
  }

  private who() {
    return {
      viewer_id: this.id,
      jti: this.s.claims.jti,
      user_agent: this.s.userAgent.slice(0, MAX_USER_AGENT),
      viewport: { width: this.viewport.w, height: this.viewport.h, dpr: this.viewport.dpr },
    };
  }

  private send(msg: object): void {
    if (this.s.ws.readyState === WebSocket.OPEN) this.s.ws.send(JSON.stringify(msg));
  }

  /** Once, whoever ends it first (the page, the session, a fault): leave the session and record why. */
  private cleanup(reason: CloseReason, code: number): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.leave?.();
    clearTimeout(this.sizeTimer);
    this.offFront?.();
    this.screencast?.close();
    this.tabs?.close();
    this.cdp?.close();
    void this.s.deps.events.record(this.sessionId, "live_view.closed", {
      viewer_id: this.id,
      reason,
      code,
      seconds: Math.round((Date.now() - this.opened) / 1000),
    });
  }
}
