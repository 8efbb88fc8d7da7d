import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../../logger.ts";
import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";

/**
 * Keeps one browser's downloads in its session's folder and under a size cap (issue: browser-side
 * security). It holds its own browser-level CDP connection from launch on, invisible to the
 * session's clients: download events reach every connection that asked for them, whichever
 * connection set the download behaviour, so a client cannot switch the guard off.
 *
 * - The default browser context downloads into the folder (`allow`, the server's file names);
 *   a context a client creates gets the same unless the client set its own behaviour first (the
 *   CDP filter redirects that into the folder too, and tells us through `clientConfigured`).
 * - The cap counts every download of the session, finished or not, by what Chromium reports and
 *   by what is on disk (checked every POLL_MS while one runs, because Chromium reports progress
 *   only about twice a second). A download that would pass it is cancelled (Chromium deletes the
 *   partial file) or, when it finished between two checks, deleted.
 */

export type DownloadState = "in_progress" | "completed" | "canceled" | "refused";

export interface Download {
  /** Chromium's id for the download (a UUID). */
  id: string;
  /** The file name the site suggested (what a browser would save it as). */
  name: string;
  state: DownloadState;
  bytes: number;
  totalBytes: number | null;
  startedAt: Date;
  endedAt: Date | null;
  /** Where the finished file is (inside the session's folder); null until completed. */
  file: string | null;
}

export type DownloadNotice =
  | { type: "download.started" | "download.completed" | "download.canceled"; download: Download }
  | { type: "download.refused"; download: Download; reason: string };

interface ProgressParams {
  guid: string;
  totalBytes: number;
  receivedBytes: number;
  state: "inProgress" | "completed" | "canceled";
  filePath?: string;
}

const POLL_MS = 100;
/** Each download is a file and a few events: a page cannot start more than this many per session. */
const MAX_DOWNLOADS = 200;

export class DownloadGuard {
  /** The session the browser belongs to, once leased; notices before that are dropped (nobody drives a spare). */
  sessionId: string | undefined;
  onNotice: ((sessionId: string, notice: DownloadNotice) => void) | undefined;
  readonly #downloads = new Map<string, Download>();
  /** Page targets' browser contexts, to cancel a download in the context that started it. */
  readonly #targetContext = new Map<string, string>();
  readonly #contexts = new Set<string>();
  readonly #clientConfigured = new Set<string>();
  #poll: NodeJS.Timeout | undefined;

  private constructor(
    private readonly cdp: CdpClient,
    readonly folder: string,
    readonly maxBytes: number,
    private readonly log: Logger,
    private readonly defaultContext: string | undefined,
  ) {
    cdp.on("Target.targetCreated", ({ targetInfo }: { targetInfo: { targetId: string; browserContextId?: string } }) => {
      const context = targetInfo.browserContextId;
      if (!context) return;
      this.#targetContext.set(targetInfo.targetId, context);
      if (context === defaultContext || this.#contexts.has(context)) return;
      this.#contexts.add(context);
      if (!this.#clientConfigured.has(context)) this.cdp.post("Browser.setDownloadBehavior", this.#behaviour(context));
    });
    cdp.on("Target.targetDestroyed", ({ targetId }: { targetId: string }) => this.#targetContext.delete(targetId));
    cdp.on("Browser.downloadWillBegin", (params: { guid: string; suggestedFilename: string; frameId: string }) => this.#begin(params));
    cdp.on("Browser.downloadProgress", (params: ProgressParams) => this.#progress(params));
    void cdp.closed.then(() => clearInterval(this.#poll));
  }

  /** Connects to a freshly launched browser and sets its download behaviour before anyone else can. */
  static async open(pipe: CdpPipe, folder: string, maxBytes: number, log: Logger): Promise<DownloadGuard> {
    const cdp = await CdpClient.open(pipe);
    try {
      const { targetInfos } = await cdp.send<{ targetInfos: Array<{ browserContextId?: string }> }>("Target.getTargets");
      const guard = new DownloadGuard(cdp, folder, maxBytes, log.child({ component: "download-guard" }), targetInfos[0]?.browserContextId);
      await cdp.send("Browser.setDownloadBehavior", guard.#behaviour(undefined));
      await cdp.send("Target.setDiscoverTargets", { discover: true });
      return guard;
    } catch (err) {
      cdp.close();
      throw err;
    }
  }

  /** The session's downloads, oldest first. */
  list(): Download[] {
    return [...this.#downloads.values()].map((d) => ({ ...d }));
  }

  get(id: string): Download | undefined {
    const download = this.#downloads.get(id);
    return download && { ...download };
  }

  /** A client set a download behaviour for this context (null: the default one); the guard leaves it be. */
  clientConfigured(context: string | null): void {
    if (context) this.#clientConfigured.add(context);
  }

  close(): void {
    clearInterval(this.#poll);
    this.cdp.close();
  }

  #behaviour(context: string | undefined): Record<string, unknown> {
    return {
      behavior: this.maxBytes > 0 ? "allow" : "deny",
      downloadPath: this.folder,
      eventsEnabled: true,
      ...(context ? { browserContextId: context } : {}),
    };
  }

  #begin(params: { guid: string; suggestedFilename: string; frameId: string }): void {
    const download: Download = {
      id: params.guid,
      name: params.suggestedFilename,
      state: "in_progress",
      bytes: 0,
      totalBytes: null,
      startedAt: new Date(),
      endedAt: null,
      file: null,
    };
    this.#downloads.set(params.guid, download);
    this.#notify({ type: "download.started", download });
    if (this.maxBytes === 0) return this.#refuse(download, params.frameId, "downloads are turned off on this server");
    if (this.#downloads.size > MAX_DOWNLOADS) return this.#refuse(download, params.frameId, `a session may make at most ${MAX_DOWNLOADS} downloads`);
    this.#poll ??= setInterval(() => this.#checkDisk(), POLL_MS);
    this.#poll.unref();
  }

  #progress(params: ProgressParams): void {
    const download = this.#downloads.get(params.guid);
    if (!download) return;
    if (download.state === "refused") {
      // Refused, but it finished before the cancel reached it (a small file): it goes all the same.
      if (params.state === "completed") this.#discard(params.filePath ?? path.join(this.folder, download.id));
      return;
    }
    if (download.state !== "in_progress") return;
    download.bytes = Math.max(download.bytes, params.receivedBytes);
    if (params.totalBytes > 0) download.totalBytes = params.totalBytes;
    if (params.state === "inProgress") {
      if (this.#used() > this.maxBytes) this.#refuse(download, undefined, this.#overCap());
      return;
    }
    download.endedAt = new Date();
    this.#stopPollingWhenIdle();
    if (params.state === "canceled") {
      download.state = "canceled";
      return this.#notify({ type: "download.canceled", download });
    }
    download.file = params.filePath ?? path.join(this.folder, download.id);
    if (!this.#inFolder(download.file) || this.#used() > this.maxBytes) {
      // Finished between two checks: the cap still holds, by deleting it.
      this.#discard(download.file);
      download.file = null;
      download.state = "refused";
      return this.#notify({ type: "download.refused", download, reason: this.#overCap() });
    }
    download.state = "completed";
    this.#notify({ type: "download.completed", download });
  }

  /** Bytes the session's downloads take: what Chromium reported, or what is on disk when that is more. */
  #used(): number {
    let reported = 0;
    for (const d of this.#downloads.values()) if (d.state === "in_progress" || d.state === "completed") reported += d.bytes;
    return Math.max(reported, this.#diskBytes());
  }

  #diskBytes(): number {
    let total = 0;
    try {
      for (const entry of fs.readdirSync(this.folder, { withFileTypes: true })) {
        if (entry.isFile()) total += fs.statSync(path.join(this.folder, entry.name), { throwIfNoEntry: false })?.size ?? 0;
      }
    } catch {
      // The folder goes when the browser closes; nothing is left to count.
    }
    return total;
  }

  #checkDisk(): void {
    if (this.#diskBytes() <= this.maxBytes) return;
    for (const download of this.#downloads.values()) {
      if (download.state === "in_progress") this.#refuse(download, undefined, this.#overCap());
    }
  }

  #overCap(): string {
    return `the session's downloads would pass ${this.maxBytes} bytes (VESSEL_DOWNLOAD_MAX_BYTES)`;
  }

  #refuse(download: Download, frameId: string | undefined, reason: string): void {
    download.state = "refused";
    download.endedAt = new Date();
    this.#stopPollingWhenIdle();
    this.#notify({ type: "download.refused", download, reason });
    void this.#cancel(download.id, frameId);
  }

  /** Cancels in the context that started it when known, else tries each context the guard has seen. */
  async #cancel(guid: string, frameId: string | undefined): Promise<void> {
    const known = frameId ? this.#targetContext.get(frameId) : undefined;
    const candidates = [known, undefined, ...this.#contexts].filter((c, i, all) => all.indexOf(c) === i);
    for (const context of candidates) {
      try {
        await this.cdp.send("Browser.cancelDownload", context ? { guid, browserContextId: context } : { guid });
        return;
      } catch {
        // "No download item found" in this context: try the next one.
      }
    }
    this.log.warn({ sessionId: this.sessionId, guid }, "could not cancel a download over the cap");
  }

  #stopPollingWhenIdle(): void {
    for (const d of this.#downloads.values()) if (d.state === "in_progress") return;
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  /** Deletes a downloaded file, only ever inside the session's folder. */
  #discard(file: string): void {
    if (this.#inFolder(file)) fs.rmSync(file, { force: true });
  }

  #inFolder(file: string): boolean {
    const resolved = path.resolve(file);
    return resolved.startsWith(path.resolve(this.folder) + path.sep);
  }

  #notify(notice: DownloadNotice): void {
    if (!this.sessionId || !this.onNotice) return;
    try {
      this.onNotice(this.sessionId, { ...notice, download: { ...notice.download } } as DownloadNotice);
    } catch (err) {
      this.log.error({ err, sessionId: this.sessionId }, "a download notice failed");
    }
  }
}
