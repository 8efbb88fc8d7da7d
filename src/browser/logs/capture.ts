import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";
import { consoleText, entryUrl, pageError, sourceOf, type CallFrame, type ExceptionDetails, type RemoteObject } from "./format.ts";
import { NetworkTracker, type NetworkData } from "./network.ts";
import { timingsOf } from "./network-detail.ts";
import { PolicyRefusals } from "./policy-refusals.ts";
import type { EgressRefusal } from "../egress/shared.ts";

/**
 * What a session's pages do, read over a CDP connection of the node's own on the browser's pipe
 * (a channel: the session's clients neither see it nor can switch it off; the method policy does
 * not judge it). Every page, frame and worker is attached as it appears (browser-level auto-attach,
 * paused until we have enabled what we read), and the tab a spare already had is attached too.
 * Entries are neutral (`type`, `at`, `data` in snake_case); the sessions' log service stores them.
 *
 * - `console`: level, text (≤ 8 KiB), where it was called, the page's URL;
 * - `page_error`: an uncaught error: message, stack (≤ 8 KiB), where, the page's URL;
 * - `navigation`: a frame committed a URL (or moved within its document), with its document's `loader_id`;
 * - `network`: one per finished or failed request, or answered one whose body did not finish
 *   (network.ts): headers with credential values masked and the phases of its time
 *   (network-detail.ts), never a body.
 *
 * URLs and texts have credential query values masked (redaction.ts).
 */

export type CapturedType = "console" | "page_error" | "navigation" | "network" | "cdp";

export interface CapturedEntry {
  type: CapturedType;
  at: Date;
  data: Record<string, unknown>;
}

interface Target {
  type: string;
  targetId: string;
  /** The target's URL; for a page, its main frame's current one. */
  url: string;
  /** The page this target belongs to (itself for a page, else the page it was attached under, if any). */
  page: Target;
  network: NetworkTracker;
  releaseTimer?: NodeJS.Timeout;
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };
/** Chromium keeps console arguments' objects alive for the session that enabled Runtime; they are let go this long after the last. */
const RELEASE_CONSOLE_MS = 1_000;

export class SessionLogCapture {
  readonly #targets = new Map<string, Target>();
  /** Connections the session's network rules refused: their requests are logged as `blocked-by-policy`. */
  readonly #refusals = new PolicyRefusals(({ host, port, url }, failure) =>
    this.#emit("network", {
      method: url ? "GET" : "CONNECT",
      url: url ? entryUrl(url) : `${host.includes(":") ? `[${host}]` : host}:${port}`,
      resource_type: url ? "websocket" : null,
      status: null,
      status_text: null,
      mime_type: null,
      response_bytes: null,
      request_bytes: null,
      started_at: new Date().toISOString(),
      duration_ms: 0,
      from_cache: false,
      loader_id: null,
      frame_id: null,
      redirect_url: null,
      http_version: null,
      server_ip: null,
      request_headers: [],
      response_headers: [],
      timings: timingsOf(undefined, 0, 0),
      ...failure,
      page_url: null,
    }),
  );

  private constructor(
    private readonly cdp: CdpClient,
    /** Where entries go; a spare's capture drops them until its session starts. */
    public sink: (entry: CapturedEntry) => void,
  ) {
    cdp.on("Target.attachedToTarget", (p: { sessionId: string; targetInfo: TargetInfo }, parent) => this.#attached(p.sessionId, p.targetInfo, parent));
    cdp.on("Target.detachedFromTarget", (p: { sessionId: string }) => this.#detached(p.sessionId));
    cdp.on("Runtime.consoleAPICalled", (p: { type: string; args: RemoteObject[]; stackTrace?: { callFrames: CallFrame[] } }, sid) => this.#console(p, sid));
    cdp.on("Runtime.exceptionThrown", (p: { exceptionDetails: ExceptionDetails }, sid) => this.#exception(p.exceptionDetails, sid));
    cdp.on("Page.frameNavigated", (p: { frame: { id: string; parentId?: string; url: string; urlFragment?: string; loaderId?: string } }, sid) => {
      const target = sid ? this.#targets.get(sid) : undefined;
      const mainFrame = !p.frame.parentId && target?.type !== "iframe";
      this.#navigated(sid, p.frame.id, p.frame.url + (p.frame.urlFragment ?? ""), mainFrame, false, p.frame.loaderId);
    });
    cdp.on("Page.navigatedWithinDocument", (p: { frameId: string; url: string }, sid) => {
      const target = sid ? this.#targets.get(sid) : undefined;
      this.#navigated(sid, p.frameId, p.url, target?.type === "page" && p.frameId === target.targetId, true);
    });
    const network = (method: string, call: (tracker: NetworkTracker, params: any) => void) =>
      cdp.on(method, (params, sid) => {
        const target = sid ? this.#targets.get(sid) : undefined;
        if (target) call(target.network, params);
      });
    network("Network.requestWillBeSent", (n, p) => n.willBeSent(p));
    network("Network.responseReceived", (n, p) => n.responseReceived(p));
    network("Network.requestServedFromCache", (n, p) => n.servedFromCache(p));
    network("Network.loadingFinished", (n, p) => n.finished(p));
    network("Network.loadingFailed", (n, p) => n.failed(p));
    cdp.on("Network.webSocketCreated", (p: { url: string }) => this.#refusals.webSocketCreated(p.url));
  }

  /** The browser's egress listener refused a connection (wired by the pool, browser/pool/pooled-browser.ts). */
  egressRefused(refusal: EgressRefusal): void {
    this.#refusals.refused(refusal);
  }

  /** Attaches to the browser: from here on, every new target waits for us before it runs. */
  static async open(pipe: CdpPipe, sink: (entry: CapturedEntry) => void = () => {}): Promise<SessionLogCapture> {
    const cdp = await CdpClient.open(pipe);
    const capture = new SessionLogCapture(cdp, sink);
    try {
      // Existing targets (a spare's blank tab) are attached too, by the same call.
      await cdp.send("Target.setAutoAttach", AUTO_ATTACH);
      return capture;
    } catch (err) {
      capture.close();
      throw err;
    }
  }

  get isOpen(): boolean {
    return this.cdp.isOpen;
  }

  /** Stops reading: every target is detached (requests answered are logged, those still waiting for an answer not). Idempotent. */
  close(): void {
    for (const target of this.#targets.values()) {
      clearTimeout(target.releaseTimer);
      target.network.flush();
    }
    this.#targets.clear();
    this.cdp.close();
  }

  #emit(type: CapturedType, data: Record<string, unknown>): void {
    this.sink({ type, at: new Date(), data });
  }

  /**
   * A page, frame or worker attached (and, if new, paused): everything is asked for at once, without
   * waiting for the answers, and it is resumed last, so it waits one round trip and misses nothing.
   */
  #attached(attachmentId: string, info: TargetInfo, parent: string | undefined): void {
    const network = new NetworkTracker(
      (data: NetworkData) => this.#emit("network", { ...data, page_url: this.#pageUrl(target) }),
      (url, errorText) => this.#refusals.explain(url, errorText),
    );
    const above = parent ? this.#targets.get(parent) : undefined;
    const target: Target = { type: info.type, targetId: info.targetId, url: info.url, page: undefined as never, network };
    target.page = info.type === "page" ? target : (above?.page ?? target);
    this.#targets.set(attachmentId, target);
    const post = (method: string, params: object = {}) => this.cdp.post(method, params, attachmentId);
    const frames = info.type === "page" || info.type === "iframe";
    const worker = info.type === "worker" || info.type === "service_worker" || info.type === "shared_worker";
    if (frames || worker) {
      post("Runtime.enable");
      post("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
      if (frames) post("Page.enable");
      post("Target.setAutoAttach", AUTO_ATTACH);
    }
    post("Runtime.runIfWaitingForDebugger");
  }

  #detached(attachmentId: string): void {
    const target = this.#targets.get(attachmentId);
    if (target) {
      clearTimeout(target.releaseTimer);
      target.network.flush();
    }
    this.#targets.delete(attachmentId);
  }

  #pageUrl(target: Target | undefined): string | null {
    return target ? entryUrl(target.page.url) : null;
  }

  #console(p: { type: string; args: RemoteObject[]; stackTrace?: { callFrames: CallFrame[] } }, sid: string | undefined): void {
    const target = sid ? this.#targets.get(sid) : undefined;
    this.#emit("console", { level: p.type, text: consoleText(p.args ?? []), ...sourceOf(p.stackTrace?.callFrames[0]), page_url: this.#pageUrl(target) });
    // Objects logged stay alive in the page for our session until let go: released in batches.
    if (target && sid && !target.releaseTimer && p.args?.some((a) => a.objectId)) {
      target.releaseTimer = setTimeout(() => {
        target.releaseTimer = undefined;
        this.cdp.post("Runtime.releaseObjectGroup", { objectGroup: "console" }, sid);
      }, RELEASE_CONSOLE_MS);
      target.releaseTimer.unref();
    }
  }

  #exception(d: ExceptionDetails, sid: string | undefined): void {
    const target = sid ? this.#targets.get(sid) : undefined;
    this.#emit("page_error", { ...pageError(d), page_url: this.#pageUrl(target) });
  }

  #navigated(sid: string | undefined, frameId: string, url: string, mainFrame: boolean, sameDocument: boolean, loaderId?: string): void {
    const target = sid ? this.#targets.get(sid) : undefined;
    if (target && mainFrame && target.type === "page") target.url = url;
    this.#emit("navigation", {
      url: entryUrl(url),
      frame_id: frameId,
      main_frame: mainFrame,
      same_document: sameDocument,
      ...(loaderId ? { loader_id: loaderId } : {}),
    });
  }
}
