import type { Logger } from "../../logger.ts";
import type { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";
import type { ProfileOrigin, StorageItem } from "./format.ts";

/**
 * Seeds a profile's web storage into a session's tabs as each origin's first document starts, before
 * any of the page's own scripts, instead of visiting every origin ahead of time (a throw-away tab per
 * restore cost ~560 ms for 5 origins; DOMStorage can only write into a frame of the origin).
 *
 * A watcher connection auto-attaches to every page of the session's default context (new ones held
 * with waitForDebuggerOnStart until prepared) and registers, per pending origin, a script in an
 * isolated world (`SEED_WORLD`; page scripts never see its source or its variables):
 *
 * - localStorage is shared by the origin's documents, so it is seeded once: the script writes only
 *   when the origin's storage is still empty, and once any tab's main frame has committed a document
 *   of the origin its script is removed from every tab (a page that later clears its storage, a
 *   sign-out, is not refilled). Until then the origin is "held back": its localStorage lives only in
 *   the profile, and a capture keeps the profile's copy (`heldBackLocalStorage`). A child frame
 *   seeds only when all its ancestors share its scheme and host (same site, so first-party storage).
 * - sessionStorage lives per tab: each tab gets every origin's script, removed from that tab once it
 *   has committed a document of the origin.
 *
 * A tab with nothing left pending is let go; once nothing can be pending for new tabs either, the
 * watcher stops attaching. Every script checks `self.origin` first, so an origin's data is only ever
 * written into its own storage.
 */

/** The isolated world of the seeding scripts (CDP clients listing execution contexts may see its name). */
export const SEED_WORLD = "vessel-profile-restore";

const heldBack = new WeakMap<CdpPipe, Map<string, StorageItem[]>>();

/**
 * The localStorage, by origin, of the profile restored into the browser on `pipe` that no document
 * has loaded yet: it lives only here until then, exactly as restored.
 */
export function heldBackLocalStorage(pipe: CdpPipe): ReadonlyMap<string, StorageItem[]> {
  return heldBack.get(pipe) ?? new Map();
}

type Kind = "local" | "session";
const pairsOf = (items: ProfileOrigin["localStorage"]) => JSON.stringify(items.map((i) => [i.name, i.value]));

function localSeed(o: ProfileOrigin): string {
  return (
    `(() => { try { if (self.origin !== ${JSON.stringify(o.origin)}) return;` +
    ` const a = location.ancestorOrigins; for (let i = 0; i < a.length; i++) { const u = new URL(a[i]); if (u.protocol !== location.protocol || u.hostname !== location.hostname) return; }` +
    ` if (localStorage.length !== 0) return; for (const [k, v] of ${pairsOf(o.localStorage)}) localStorage.setItem(k, v); } catch {} })()`
  );
}

function sessionSeed(o: ProfileOrigin): string {
  // The emptiness check covers a tab opened by a page of the origin (it inherits a copy) and the
  // instant between this document starting and the watcher removing the script.
  return (
    `(() => { try { if (self.origin !== ${JSON.stringify(o.origin)} || sessionStorage.length !== 0) return;` +
    ` for (const [k, v] of ${pairsOf(o.sessionStorage)}) sessionStorage.setItem(k, v); } catch {} })()`
  );
}

interface Script {
  kind: Kind;
  origin: string;
  source: string;
}
/** A watched tab: its script identifiers by `kind origin`, for what it has not committed yet. */
type Pending = Map<string, string>;
const keyOf = (kind: Kind, origin: string) => `${kind} ${origin}`;

type TargetInfo = { type: string; browserContextId?: string };

export class StorageSeeder {
  readonly #tabs = new Map<string, Pending>();
  readonly #local = new Map<string, Script>();
  readonly #session: Script[];
  readonly #heldBack: Map<string, StorageItem[]>;
  /** The session's own (default) browser context; tabs of contexts a client creates start empty, as they should. */
  #defaultContext: string | undefined;
  #attaching = true;

  constructor(
    private readonly cdp: CdpClient,
    pipe: CdpPipe,
    origins: ProfileOrigin[],
    private readonly log: Logger,
  ) {
    for (const o of origins) if (o.localStorage.length > 0) this.#local.set(o.origin, { kind: "local", origin: o.origin, source: localSeed(o) });
    this.#session = origins.filter((o) => o.sessionStorage.length > 0).map((o) => ({ kind: "session", origin: o.origin, source: sessionSeed(o) }));
    this.#heldBack = new Map(origins.filter((o) => o.localStorage.length > 0).map((o) => [o.origin, o.localStorage]));
    heldBack.set(pipe, this.#heldBack);
    void cdp.closed.then(() => {
      this.#tabs.clear();
      this.#heldBack.clear();
    });
  }

  /** Resolves once every existing tab of the default context is prepared. */
  async start(): Promise<void> {
    const { cdp } = this;
    let preparing: Promise<void>[] | undefined = [];
    cdp.on("Target.attachedToTarget", (p: { sessionId: string; targetInfo: TargetInfo; waitingForDebugger: boolean }) => {
      const prepared = this.#attached(p.sessionId, p.targetInfo, p.waitingForDebugger);
      preparing?.push(prepared);
    });
    cdp.on("Target.detachedFromTarget", (p: { sessionId: string }) => this.#tabs.delete(p.sessionId));
    cdp.on("Page.frameNavigated", (p: { frame: { parentId?: string; securityOrigin?: string } }, attachmentId) => {
      if (attachmentId && p.frame.securityOrigin) void this.#committed(attachmentId, p.frame.securityOrigin, p.frame.parentId === undefined);
    });
    // Before any client: every tab there is belongs to the default context.
    const { targetInfos } = await cdp.send<{ targetInfos: TargetInfo[] }>("Target.getTargets");
    this.#defaultContext = targetInfos.find((t) => t.type === "page")?.browserContextId;
    // Attaches to the tabs that exist now (their attach events arrive before this answer) and every later one.
    await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: "page" }] });
    await Promise.all(preparing);
    preparing = undefined;
  }

  /** What a new tab needs: every sessionStorage script, and the localStorage ones still held back. */
  #scriptsForNewTab(): Script[] {
    return [...this.#session, ...[...this.#heldBack.keys()].map((o) => this.#local.get(o)!)];
  }

  async #attached(attachmentId: string, info: TargetInfo, waiting: boolean): Promise<void> {
    const { cdp } = this;
    const ours = info.type === "page" && (this.#defaultContext === undefined || info.browserContextId === this.#defaultContext);
    const scripts = ours ? this.#scriptsForNewTab() : [];
    if (scripts.length === 0) {
      if (waiting) await cdp.send("Runtime.runIfWaitingForDebugger", {}, attachmentId).catch(() => {});
      await cdp.send("Target.detachFromTarget", { sessionId: attachmentId }).catch(() => {});
      return;
    }
    const stale: string[] = [];
    try {
      const pending: Pending = new Map();
      this.#tabs.set(attachmentId, pending);
      // Page must stay enabled for the scripts to run on new documents.
      await cdp.send("Page.enable", {}, attachmentId);
      const ids = await Promise.all(
        scripts.map((s) =>
          cdp.send<{ identifier: string }>("Page.addScriptToEvaluateOnNewDocument", { source: s.source, worldName: SEED_WORLD }, attachmentId),
        ),
      );
      scripts.forEach((s, i) => {
        // An origin committed in another tab while this one was being prepared: its localStorage is seeded.
        if (s.kind === "local" && !this.#heldBack.has(s.origin)) stale.push(ids[i]!.identifier);
        else pending.set(keyOf(s.kind, s.origin), ids[i]!.identifier);
      });
    } catch (err) {
      // The tab closed while being prepared.
      this.log.debug({ err: (err as Error).message }, "profile restore: a tab could not be prepared for web storage");
    } finally {
      if (waiting) await cdp.send("Runtime.runIfWaitingForDebugger", {}, attachmentId).catch(() => {});
    }
    for (const id of stale) await this.#remove(attachmentId, id);
  }

  async #committed(attachmentId: string, origin: string, mainFrame: boolean): Promise<void> {
    const work: Promise<void>[] = [];
    const session = this.#take(attachmentId, keyOf("session", origin));
    if (session) work.push(this.#remove(attachmentId, session));
    if (mainFrame && this.#heldBack.delete(origin)) {
      for (const tab of [...this.#tabs.keys()]) {
        const id = this.#take(tab, keyOf("local", origin));
        if (id) work.push(this.#remove(tab, id));
      }
      if (this.#heldBack.size === 0 && this.#session.length === 0 && this.#attaching) {
        // Nothing left for new tabs: stop holding them.
        this.#attaching = false;
        work.push(
          this.cdp.send("Target.setAutoAttach", { autoAttach: false, waitForDebuggerOnStart: false }).then(
            () => {},
            () => {},
          ),
        );
      }
    }
    await Promise.all(work);
  }

  #take(tab: string, key: string): string | undefined {
    const pending = this.#tabs.get(tab);
    const id = pending?.get(key);
    if (id !== undefined) pending!.delete(key);
    return id;
  }

  /** Removes one script from a tab; a tab with nothing left pending is left entirely (disabling Page drops its scripts too). */
  async #remove(tab: string, identifier: string): Promise<void> {
    const { cdp } = this;
    const pending = this.#tabs.get(tab);
    if (pending && pending.size > 0) {
      await cdp.send("Page.removeScriptToEvaluateOnNewDocument", { identifier }, tab).catch(() => {});
      return;
    }
    this.#tabs.delete(tab);
    await cdp.send("Page.disable", {}, tab).catch(() => {});
    await cdp.send("Target.detachFromTarget", { sessionId: tab }).catch(() => {});
  }
}
