import {
  CURRENT_FORMAT_VERSION,
  MAX_COOKIES,
  MAX_ITEMS,
  MAX_ORIGINS,
  MAX_STORAGE_NAME,
  PROFILE_FORMAT,
  ProfileCookie,
  type ProfileDocument,
  type ProfileOrigin,
  type StorageItem,
} from "./format.ts";
import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";
import { evaluateIn, withOriginTab } from "./origin-tab.ts";
import { heldBackLocalStorage } from "./seeding.ts";
import { cookieOk } from "./rules.ts";

/** A cookie as Chromium's `Storage.getCookies` reports it (the fields a profile keeps). */
interface CdpCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  session: boolean;
  sameSite?: "Strict" | "Lax" | "None";
  /** An object since Chromium 125; a top-level site string before. */
  partitionKey?: { topLevelSite: string; hasCrossSiteAncestor: boolean } | string;
  partitionKeyOpaque?: boolean;
}

interface Frame {
  id: string;
  securityOrigin?: string;
}
interface FrameTree {
  frame: Frame;
  childFrames?: FrameTree[];
}

export interface CaptureResult {
  document: ProfileDocument;
  /** Cookies and storage items left out because no browser could set them again (never their values). */
  skipped: { cookies: number; items: number; origins: number };
}

function toProfileCookie(c: CdpCookie): ProfileCookie | undefined {
  if (c.partitionKeyOpaque) return undefined; // an opaque partition (a sandboxed top frame) cannot be named, so cannot be restored
  const partitionKey =
    c.partitionKey === undefined
      ? null
      : typeof c.partitionKey === "string"
        ? { topLevelSite: c.partitionKey, hasCrossSiteAncestor: false }
        : { topLevelSite: c.partitionKey.topLevelSite, hasCrossSiteAncestor: c.partitionKey.hasCrossSiteAncestor };
  const cookie = {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.session || c.expires < 0 ? -1 : c.expires,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite: c.sameSite ?? null,
    partitionKey,
  };
  // The plain check first (rules.ts says why); the schema only for what it does not accept.
  if (cookieOk(cookie)) return cookie as ProfileCookie;
  const parsed = ProfileCookie.safeParse(cookie);
  return parsed.success ? parsed.data : undefined;
}

function framesOf(tree: FrameTree): Frame[] {
  return [tree.frame, ...(tree.childFrames ?? []).flatMap(framesOf)];
}

const webOrigin = /^https?:\/\/[^/]+$/;

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a running browser's state into a profile document:
 *
 * - every cookie of the default browser context (httpOnly, session and partitioned ones included);
 * - localStorage and sessionStorage of every http(s) origin open in a tab or a same-process frame,
 *   read in place (DOMStorage; nothing runs in the pages). sessionStorage is per tab: an origin
 *   open in several tabs keeps the first tab's non-empty one;
 * - localStorage of the origins a tab has been on (its history) or that `base` (the profile the
 *   session started from) holds, when no tab has them open now: read through a throw-away tab that
 *   never reaches the network (withOriginTab). Clients connected to the session see that tab come
 *   and go; it is only opened when there are such origins;
 * - sessionStorage of an origin no tab has open cannot be read: `base`'s is kept.
 *
 * Third-party (partitioned) storage of cross-site frames is not captured.
 */
export async function captureProfile(pipe: CdpPipe, baseDoc?: ProfileDocument | Promise<ProfileDocument | undefined>): Promise<CaptureResult> {
  const cdp = await CdpClient.open(pipe);
  try {
    const [{ cookies }, { targetInfos }, contexts] = await Promise.all([
      cdp.send<{ cookies: CdpCookie[] }>("Storage.getCookies", {}),
      cdp.send<{ targetInfos: Array<{ targetId: string; type: string; browserContextId?: string }> }>("Target.getTargets", {}),
      cdp.send<{ browserContextIds: string[] }>("Target.getBrowserContexts", {}).catch(() => ({ browserContextIds: [] as string[] })),
    ]);
    // Contexts a client created (puppeteer createBrowserContext, playwright newContext) are not the session's profile.
    const created = new Set(contexts.browserContextIds);
    const pages = targetInfos.filter((t) => t.type === "page" && !(t.browserContextId && created.has(t.browserContextId)));

    const local = new Map<string, StorageItem[]>();
    const session = new Map<string, StorageItem[]>();
    const visited = new Set<string>();
    let skippedItems = 0;
    const items = (entries: string[][]): StorageItem[] => {
      const out: StorageItem[] = [];
      for (const [name, value] of entries) {
        if (typeof name !== "string" || typeof value !== "string" || name.length > MAX_STORAGE_NAME || out.length >= MAX_ITEMS) skippedItems++;
        else out.push({ name, value });
      }
      return out;
    };

    const readFrame = async (frame: Frame, attachmentId: string, top: boolean) => {
      const origin = frame.securityOrigin;
      if (!origin || !webOrigin.test(origin)) return;
      // A tab's top frame always has its origin's first-party key; only a child frame's may be partitioned.
      const storageKey = top
        ? `${origin}/`
        : await cdp.send<{ storageKey: string }>("Storage.getStorageKeyForFrame", { frameId: frame.id }, attachmentId).then(
            (r) => r.storageKey,
            () => `${origin}/`,
          );
      // A first-party key is the origin and a slash; anything longer is partitioned under another top-level site.
      if (storageKey !== `${origin}/`) return;
      const read = (isLocalStorage: boolean) =>
        cdp.send<{ entries: string[][] }>("DOMStorage.getDOMStorageItems", { storageId: { storageKey, isLocalStorage } }, attachmentId).then(
          (r) => r.entries,
          () => undefined,
        );
      const [localEntries, sessionEntries] = await Promise.all([local.has(origin) ? undefined : read(true), read(false)]);
      // Tabs are read side by side: the first answer of an origin wins, as the first tab's did before.
      if (localEntries && !local.has(origin)) local.set(origin, items(localEntries));
      if (sessionEntries && !session.get(origin)?.length) {
        const found = items(sessionEntries);
        if (found.length > 0 || !session.has(origin)) session.set(origin, found);
      }
    };

    // Every tab at once: each is its own renderer, and a save is waited on.
    await Promise.all(
      pages.map(async (page) => {
        let attachmentId: string;
        try {
          ({ sessionId: attachmentId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true }));
        } catch {
          return; // closed in the meantime
        }
        try {
          const [history, { frameTree }] = await Promise.all([
            cdp.send<{ entries: Array<{ url: string }> }>("Page.getNavigationHistory", {}, attachmentId).catch(() => ({ entries: [] })),
            cdp.send<{ frameTree: FrameTree }>("Page.getFrameTree", {}, attachmentId),
          ]);
          for (const { url } of history.entries) {
            const origin = originOf(url);
            if (origin) visited.add(origin);
          }
          await Promise.all(framesOf(frameTree).map((frame) => readFrame(frame, attachmentId, frame === frameTree.frame)));
        } catch {
          // The tab went away or navigated while being read; what it still had is lost with it.
        } finally {
          // Not waited for: nothing here depends on it, and closing the client detaches whatever is left.
          cdp.send("Target.detachFromTarget", { sessionId: attachmentId }).catch(() => {});
        }
      }),
    );

    // Origins known to the session that no tab has open now.
    // Awaited only here: it may still be being read and decrypted while the tabs are (a save is waited on).
    const base = await baseDoc;
    const baseOrigins = new Map((base?.origins ?? []).map((o) => [o.origin, o]));
    // An origin no document has loaded since the restore still has only the profile's localStorage.
    for (const [origin, kept] of heldBackLocalStorage(pipe)) if (!local.has(origin)) local.set(origin, kept);
    const elsewhere = [...new Set([...visited, ...baseOrigins.keys()])].filter((o) => !local.has(o));
    await withOriginTab(cdp, elsewhere, async (origin, tab) => {
      const entries = await evaluateIn<string[][] | null>(cdp, tab, `self.origin === ${JSON.stringify(origin)} ? Object.entries(localStorage) : null`);
      if (Array.isArray(entries)) local.set(origin, items(entries));
    });

    const origins: ProfileOrigin[] = [];
    for (const origin of new Set([...local.keys(), ...session.keys(), ...baseOrigins.keys()])) {
      const sessionStorage = session.get(origin) ?? baseOrigins.get(origin)?.sessionStorage ?? [];
      const o = { origin, localStorage: local.get(origin) ?? [], sessionStorage };
      if (o.localStorage.length > 0 || o.sessionStorage.length > 0) origins.push(o);
    }
    const kept = cookies
      .map(toProfileCookie)
      .filter((c): c is ProfileCookie => c !== undefined)
      .slice(0, MAX_COOKIES);
    return {
      document: { format: PROFILE_FORMAT, formatVersion: CURRENT_FORMAT_VERSION, cookies: kept, origins: origins.slice(0, MAX_ORIGINS) },
      skipped: { cookies: cookies.length - kept.length, items: skippedItems, origins: Math.max(0, origins.length - MAX_ORIGINS) },
    };
  } finally {
    cdp.close();
  }
}
