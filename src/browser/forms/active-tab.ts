import type { CdpClient } from "../cdp/pipe/client.ts";
import type { TargetInfo } from "../cdp/pipe/page-info.ts";

/** A tab that does not answer within this ranks last (a busy page, an open dialog). */
const READ_TIMEOUT_MS = 1_000;

interface Rank {
  id: string;
  visible: boolean;
  loaded: boolean;
  at: number;
}

const isBlank = (url: string) => url === "" || url === "about:blank";

/**
 * The tab a session is working in: Chromium has no notion of a focused tab in headless mode, so the
 * visible one (the one brought to the front last) wins, then one with a page loaded, then the one
 * whose document started loading last (the agent's latest navigation). Undefined when there is no tab.
 */
export async function activeTab(cdp: CdpClient): Promise<string | undefined> {
  const { targetInfos } = await cdp.send<{ targetInfos: TargetInfo[] }>("Target.getTargets");
  const pages = targetInfos.filter((t) => t.type === "page");
  if (pages.length <= 1) return pages[0]?.targetId;
  const ranked = await Promise.all(pages.map((t) => rank(cdp, t)));
  ranked.sort((a, b) => Number(b.visible) - Number(a.visible) || Number(b.loaded) - Number(a.loaded) || b.at - a.at);
  return ranked[0]!.id;
}

async function rank(cdp: CdpClient, t: TargetInfo): Promise<Rank> {
  const r: Rank = { id: t.targetId, visible: false, loaded: !isBlank(t.url), at: 0 };
  let attachment: string | undefined;
  try {
    ({ sessionId: attachment } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: t.targetId, flatten: true }));
    const answer = await Promise.race([
      cdp.send<{ result: { value?: unknown } }>(
        "Runtime.evaluate",
        { expression: "[document.visibilityState, performance.timeOrigin]", returnByValue: true, silent: true },
        attachment,
      ),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), READ_TIMEOUT_MS).unref()),
    ]);
    const value = answer?.result.value;
    if (Array.isArray(value)) {
      r.visible = value[0] === "visible";
      r.at = typeof value[1] === "number" ? value[1] : 0;
    }
  } catch {
    // unreadable: it ranks by its address alone
  } finally {
    if (attachment) cdp.post("Target.detachFromTarget", { sessionId: attachment });
  }
  return r;
}
