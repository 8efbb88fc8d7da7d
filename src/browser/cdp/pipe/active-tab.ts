import type { CdpClient } from "./client.ts";
import type { CdpPipe } from "./pipe.ts";

/** What this needs of a target (page-info.ts TargetInfo has more; named here so the two files do not import each other). */
interface PageTarget {
  targetId: string;
  type: string;
  url: string;
}

/** A tab that does not answer within this ranks last (a busy page, an open dialog). */
const READ_TIMEOUT_MS = 1_000;

const isBlank = (url: string) => url === "" || url === "about:blank";

/**
 * The session's one active tab, for the session's `page`, the credential fill and (through the same
 * pipe.recentTargets and mostRecentlyLoaded) the live view: the page a client last brought to the
 * front or drove (pipe/channel.ts FRONT); when that one closed, the most recently driven one left
 * (as the recording does); before any, the page loaded most recently.
 * Undefined when there is no page. `pages` when the caller has just read them.
 */
export async function activeTab<T extends PageTarget = PageTarget>(cdp: CdpClient, pipe: CdpPipe, pages?: readonly T[]): Promise<T | undefined> {
  const open = pages ?? ((await cdp.send<{ targetInfos: T[] }>("Target.getTargets")).targetInfos ?? []).filter((t) => t.type === "page");
  for (const id of pipe.recentTargets) {
    const driven = open.find((p) => p.targetId === id);
    if (driven) return driven;
  }
  const id = await mostRecentlyLoaded(cdp, open);
  return open.find((p) => p.targetId === id);
}

/**
 * The fallback before any tab was driven (or after the driven one closed): one with a page loaded (not
 * the browser's first blank tab), the one whose document started loading last (the agent's latest
 * navigation). Chromium has no focused tab in headless mode and lists targets in no useful order.
 */
export async function mostRecentlyLoaded(cdp: CdpClient, candidates: readonly Pick<PageTarget, "targetId" | "url">[]): Promise<string | undefined> {
  if (candidates.length <= 1) return candidates[0]?.targetId;
  const loaded = candidates.filter((t) => !isBlank(t.url));
  const pool = loaded.length > 0 ? loaded : candidates;
  if (pool.length === 1) return pool[0]!.targetId;
  const ranked = await Promise.all(pool.map(async (t) => ({ id: t.targetId, at: await loadedAt(cdp, t.targetId) })));
  ranked.sort((a, b) => b.at - a.at);
  return ranked[0]!.id;
}

async function loadedAt(cdp: CdpClient, targetId: string): Promise<number> {
  let attachment: string | undefined;
  try {
    ({ sessionId: attachment } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true }));
    const answer = await Promise.race([
      cdp.send<{ result: { value?: unknown } }>("Runtime.evaluate", { expression: "performance.timeOrigin", returnByValue: true, silent: true }, attachment),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), READ_TIMEOUT_MS).unref()),
    ]);
    return typeof answer?.result.value === "number" ? answer.result.value : 0;
  } catch {
    // unreadable: it ranks last
    return 0;
  } finally {
    if (attachment) cdp.post("Target.detachFromTarget", { sessionId: attachment });
  }
}
