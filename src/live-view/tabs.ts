import type { CdpClient } from "../browser/cdp/pipe/client.ts";
import { mostRecentlyLoaded } from "../browser/cdp/pipe/active-tab.ts";
import { pageSummary, type TargetInfo } from "../browser/cdp/pipe/page-info.ts";
import type { TabInfo } from "./protocol.ts";

/** Title and address changes arrive in bursts while a page loads; the viewer hears at most this often. */
const NOTIFY_EVERY_MS = 150;
/**
 * Chromium reports a tab's new address but not its new title (the page sets it as it loads), so the
 * list is read again shortly after each change and every few seconds while someone watches.
 */
const REREAD_AFTER_CHANGE_MS = [300, 1_500];
const REREAD_EVERY_MS = 3_000;

const toTab = (t: TargetInfo): TabInfo => ({ id: t.targetId, ...pageSummary(t) });

/**
 * The session's page tabs, kept current from Target.setDiscoverTargets. Only `page` targets are
 * tabs (service workers, iframes and the browser itself are not something a person looks at).
 */
export class Tabs {
  private readonly tabs = new Map<string, TabInfo>();
  private notifyTimer: NodeJS.Timeout | undefined;
  private rereadTimers: NodeJS.Timeout[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private lastSent = "";
  private started = false;
  private readonly offs: Array<() => void> = [];

  constructor(
    private readonly cdp: CdpClient,
    private readonly on: { changed(): void; created(id: string): void; destroyed(id: string): void },
  ) {
    const upsert = (p: { targetInfo: TargetInfo }) => {
      const t = p.targetInfo;
      if (t.type !== "page") return;
      const known = this.tabs.has(t.targetId);
      this.tabs.set(t.targetId, toTab(t));
      if (!known) this.on.created(t.targetId);
      this.schedule();
      this.rereadSoon();
    };
    const remove = (p: { targetId: string }) => {
      if (!this.tabs.delete(p.targetId)) return;
      this.on.destroyed(p.targetId);
      this.schedule();
    };
    this.offs.push(
      cdp.on("Target.targetCreated", upsert),
      cdp.on("Target.targetInfoChanged", upsert),
      cdp.on("Target.targetDestroyed", remove),
      cdp.on("Target.targetCrashed", remove),
    );
  }

  /** Starts discovery: Chromium reports every existing tab as created, then each change. */
  async start(): Promise<void> {
    await this.cdp.send("Target.setDiscoverTargets", { discover: true, filter: [{ type: "page" }] });
    // Discovery's events precede its answer, but the list is read once more in case of an older Chromium.
    await this.reread();
    this.pollTimer = setInterval(() => void this.reread().catch(() => {}), REREAD_EVERY_MS);
    this.pollTimer.unref();
  }

  list(): TabInfo[] {
    return [...this.tabs.values()];
  }

  has(id: string): boolean {
    return this.tabs.has(id);
  }

  /**
   * The session's active tab (browser/cdp/pipe/active-tab.ts) among these tabs: the most recently
   * driven one open (`driven`: the pipe's recentTargets), else the page loaded last.
   */
  async mostRecent(driven: readonly string[], exclude?: string): Promise<string | undefined> {
    const open = driven.find((id) => id !== exclude && this.tabs.has(id));
    if (open) return open;
    return mostRecentlyLoaded(
      this.cdp,
      this.list()
        .filter((t) => t.id !== exclude)
        .map((t) => ({ targetId: t.id, url: t.url })),
    );
  }

  close(): void {
    clearTimeout(this.notifyTimer);
    for (const timer of this.rereadTimers) clearTimeout(timer);
    clearInterval(this.pollTimer);
    for (const off of this.offs) off();
  }

  /** The current titles and addresses of the tabs we know (tabs come and go through events only). */
  private async reread(): Promise<void> {
    const { targetInfos } = await this.cdp.send<{ targetInfos: TargetInfo[] }>("Target.getTargets");
    for (const t of targetInfos) {
      if (t.type === "page" && (!this.started || this.tabs.has(t.targetId))) this.tabs.set(t.targetId, toTab(t));
    }
    this.started = true;
    this.schedule();
  }

  private rereadSoon(): void {
    for (const timer of this.rereadTimers) clearTimeout(timer);
    this.rereadTimers = REREAD_AFTER_CHANGE_MS.map((ms) => setTimeout(() => void this.reread().catch(() => {}), ms));
  }

  /** When the tab's document started loading (0 when it cannot be read). A short-lived session, read-only. */
  /** Tells the viewer about the list, at most every NOTIFY_EVERY_MS and only when it changed. */
  private schedule(): void {
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      const now = JSON.stringify(this.list());
      if (now === this.lastSent) return;
      this.lastSent = now;
      this.on.changed();
    }, NOTIFY_EVERY_MS);
  }
}
