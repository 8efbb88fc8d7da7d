import type { Logger } from "../logger.ts";
import type { ProfileCookie, ProfileDocument, ProfileOrigin } from "./profile-format.ts";
import { CdpClient } from "./cdp-client.ts";
import type { CdpPipe } from "./cdp-pipe.ts";
import { evaluateIn, withOriginTab } from "./profile-origin-tab.ts";

/**
 * Puts a profile into a fresh session browser before anyone else connects to it:
 *
 * - Cookies: `Storage.setCookies` on the default context, so the first request of the first
 *   navigation already carries them.
 * - localStorage: a throw-away tab whose every request is answered from here with an empty page
 *   (`Fetch.fulfillRequest`, nothing reaches the network) is pointed at each origin in turn, the
 *   items are set, and the tab is closed before the session is handed out. This is what Playwright
 *   does for `storageState`.
 * - sessionStorage lives per tab, and tabs the client opens later do not exist yet, so it cannot be
 *   written ahead. A watcher connection stays with the session: it auto-attaches to every page target
 *   (holding new ones with waitForDebuggerOnStart) and registers, per profile origin, a script in an
 *   isolated world that fills that origin's sessionStorage when the tab's first document of that
 *   origin starts, before any of the page's own scripts. Once a tab has committed a document of an
 *   origin, that origin's script is removed from the tab, so a page that clears its sessionStorage
 *   (a sign-out) is not refilled; once all origins are done the watcher detaches from the tab.
 */

/** The isolated world of the seeding scripts (CDP clients listing execution contexts may see its name). */
export const SEED_WORLD = "vessel-profile-restore";

interface CdpCookieParam {
  name: string;
  value: string;
  domain: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: "Strict" | "Lax" | "None";
  expires?: number;
  partitionKey?: { topLevelSite: string; hasCrossSiteAncestor: boolean };
}

function toCdpCookie(c: ProfileCookie): CdpCookieParam {
  return {
    name: c.name, value: c.value, domain: c.domain, path: c.path, secure: c.secure, httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    ...(c.expires === -1 ? {} : { expires: c.expires }),
    ...(c.partitionKey ? { partitionKey: c.partitionKey } : {}),
  };
}

export interface RestoreReport {
  cookies: number;
  /** Cookies not set: expired since they were saved, or refused by this Chromium (a rule it added). */
  cookiesSkipped: number;
  localStorageOrigins: number;
  /** Origins this Chromium would not open (an unsafe port, say), so their localStorage was not written. */
  localStorageOriginsSkipped: number;
  sessionStorageOrigins: number;
  /** From the start: when cookies were set, when localStorage was written (the two run side by side). */
  cookiesMs: number;
  localStorageMs: number;
  /** Attaching the sessionStorage watcher to the existing tabs, after both. */
  sessionStorageMs: number;
  ms: number;
}

/**
 * Restores `doc` into the browser on `pipe` (a session's fresh browser, before its session is
 * returned). Resolves once cookies and localStorage are in place and the sessionStorage watcher is
 * attached to every existing tab; the watcher lives until the browser closes.
 */
export async function restoreProfile(pipe: CdpPipe, doc: ProfileDocument, log: Logger): Promise<RestoreReport> {
  const started = performance.now();
  const cdp = await CdpClient.open(pipe);
  let keepOpen = false;
  try {
    const nowSeconds = Date.now() / 1000;
    const live = doc.cookies.filter((c) => c.expires === -1 || c.expires > nowSeconds);
    const withLocal = doc.origins.filter((o) => o.localStorage.length > 0);
    const withSession = doc.origins.filter((o) => o.sessionStorage.length > 0);
    const since = (t: number) => Math.round(performance.now() - t);
    const phases = { cookiesMs: 0, localStorageMs: 0, sessionStorageMs: 0 };
    // Independent of each other: the localStorage tab never reaches the network, so it needs no cookie.
    const [refused, originsSkipped] = await Promise.all([
      setCookies(cdp, live.map(toCdpCookie)).finally(() => (phases.cookiesMs = since(started))),
      seedLocalStorage(cdp, withLocal).finally(() => (phases.localStorageMs = since(started))),
    ]);
    // After the localStorage tab is gone, so the watcher never attaches to it.
    if (withSession.length > 0) {
      const t = performance.now();
      await new SessionStorageWatcher(cdp, withSession, log).start();
      keepOpen = true;
      phases.sessionStorageMs = since(t);
    }
    return {
      cookies: live.length - refused,
      cookiesSkipped: doc.cookies.length - live.length + refused,
      localStorageOrigins: withLocal.length - originsSkipped,
      localStorageOriginsSkipped: originsSkipped,
      sessionStorageOrigins: withSession.length,
      ...phases,
      ms: performance.now() - started,
    };
  } finally {
    if (!keepOpen) cdp.close();
  }
}

/** Sets every cookie in one call; when the browser refuses the batch, one by one, so one bad cookie costs only itself. Returns how many were refused. */
async function setCookies(cdp: CdpClient, cookies: CdpCookieParam[]): Promise<number> {
  if (cookies.length === 0) return 0;
  try {
    await cdp.send("Storage.setCookies", { cookies });
    return 0;
  } catch {
    let refused = 0;
    for (const cookie of cookies) await cdp.send("Storage.setCookies", { cookies: [cookie] }).catch(() => refused++);
    return refused;
  }
}

/** Writes each origin's localStorage; returns how many origins this Chromium would not open. */
async function seedLocalStorage(cdp: CdpClient, origins: ProfileOrigin[]): Promise<number> {
  const byOrigin = new Map(origins.map((o) => [o.origin, o.localStorage]));
  const skipped = await withOriginTab(cdp, [...byOrigin.keys()], async (origin, tab) => {
    const pairs = JSON.stringify(byOrigin.get(origin)!.map((i) => [i.name, i.value]));
    const count = await evaluateIn<number>(
      cdp, tab,
      `(() => { if (self.origin !== ${JSON.stringify(origin)}) return -1; for (const [k, v] of ${pairs}) localStorage.setItem(k, v); return localStorage.length; })()`,
    );
    if (typeof count !== "number" || count < 0) throw new Error("localStorage could not be written (the tab is not on the origin)");
  });
  return skipped.length;
}

/** The script that fills one origin's sessionStorage in a tab's first document of that origin. */
function seedScript(o: ProfileOrigin): string {
  const pairs = JSON.stringify(o.sessionStorage.map((i) => [i.name, i.value]));
  // The emptiness check covers a tab opened by a page of the origin (it inherits a copy) and the
  // instant between this document starting and the watcher removing the script.
  return `(() => { try { if (self.origin !== ${JSON.stringify(o.origin)} || sessionStorage.length !== 0) return; for (const [k, v] of ${pairs}) sessionStorage.setItem(k, v); } catch {} })()`;
}

interface WatchedTab {
  /** Script identifiers by origin, for the origins this tab has not opened yet. */
  pending: Map<string, string>;
}

class SessionStorageWatcher {
  readonly #tabs = new Map<string, WatchedTab>();
  readonly #scripts: Array<{ origin: string; source: string }>;
  /** The session's own (default) browser context; tabs of contexts a client creates start empty, as they should. */
  #defaultContext: string | undefined;

  constructor(
    private readonly cdp: CdpClient,
    origins: ProfileOrigin[],
    private readonly log: Logger,
  ) {
    this.#scripts = origins.map((o) => ({ origin: o.origin, source: seedScript(o) }));
  }

  async start(): Promise<void> {
    const { cdp } = this;
    let preparing: Promise<void>[] | undefined = [];
    cdp.on("Target.attachedToTarget", (p: { sessionId: string; targetInfo: { type: string; browserContextId?: string }; waitingForDebugger: boolean }) => {
      const prepared = this.#attached(p.sessionId, p.targetInfo, p.waitingForDebugger);
      preparing?.push(prepared);
    });
    cdp.on("Target.detachedFromTarget", (p: { sessionId: string }) => this.#tabs.delete(p.sessionId));
    cdp.on("Page.frameNavigated", (p: { frame: { securityOrigin?: string } }, sessionId) => {
      if (sessionId) void this.#opened(sessionId, p.frame.securityOrigin);
    });
    // Before any client: every tab there is belongs to the default context.
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ type: string; browserContextId?: string }> }>("Target.getTargets");
    this.#defaultContext = targetInfos.find((t) => t.type === "page")?.browserContextId;
    // Attaches to the tabs that exist now (their attach events arrive before this answer) and every later one.
    await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: "page" }] });
    // The existing tabs are ready before the session is handed out; later tabs wait for us on their own.
    await Promise.all(preparing);
    preparing = undefined;
    void cdp.closed.then(() => this.#tabs.clear());
  }

  async #attached(sessionId: string, info: { type: string; browserContextId?: string }, waiting: boolean): Promise<void> {
    const { cdp } = this;
    const ours = info.type === "page" && (this.#defaultContext === undefined || info.browserContextId === this.#defaultContext);
    if (!ours) {
      if (waiting) await cdp.send("Runtime.runIfWaitingForDebugger", {}, sessionId).catch(() => {});
      await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
      return;
    }
    try {
      const tab: WatchedTab = { pending: new Map() };
      this.#tabs.set(sessionId, tab);
      // Page must stay enabled for the scripts to run on new documents.
      await cdp.send("Page.enable", {}, sessionId);
      for (const s of this.#scripts) {
        const { identifier } = await cdp.send<{ identifier: string }>("Page.addScriptToEvaluateOnNewDocument", { source: s.source, worldName: SEED_WORLD }, sessionId);
        tab.pending.set(s.origin, identifier);
      }
    } catch (err) {
      // The tab closed while being prepared.
      this.log.debug({ err: (err as Error).message }, "profile restore: a tab could not be prepared for sessionStorage");
    } finally {
      if (waiting) await cdp.send("Runtime.runIfWaitingForDebugger", {}, sessionId).catch(() => {});
    }
  }

  async #opened(sessionId: string, origin: string | undefined): Promise<void> {
    const tab = this.#tabs.get(sessionId);
    const identifier = origin ? tab?.pending.get(origin) : undefined;
    if (!tab || !origin || identifier === undefined) return;
    tab.pending.delete(origin);
    const { cdp } = this;
    if (tab.pending.size > 0) {
      await cdp.send("Page.removeScriptToEvaluateOnNewDocument", { identifier }, sessionId).catch(() => {});
      return;
    }
    // Nothing left to seed in this tab: leave it entirely (disabling Page drops the scripts too).
    this.#tabs.delete(sessionId);
    await cdp.send("Page.disable", {}, sessionId).catch(() => {});
    await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
}
