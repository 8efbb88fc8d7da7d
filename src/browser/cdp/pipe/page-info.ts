import { activeTab } from "./active-tab.ts";
import { CdpClient } from "./client.ts";
import type { CdpPipe } from "./pipe.ts";

export interface OpenPage {
  title: string;
  url: string;
}

/** What Target.getTargets / Target.targetInfoChanged say of a target. */
export interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
}

const MAX_TITLE = 200;
const MAX_URL = 2000;

/** A page's title and address cut to a sane length (a page sets both, and may make them huge). */
export const pageSummary = (t: TargetInfo): OpenPage => ({ title: t.title.slice(0, MAX_TITLE), url: t.url.slice(0, MAX_URL) });

/** Pages of the browser, on a channel of their own that is closed again at once. */
async function withClient<T>(pipe: CdpPipe, work: (cdp: CdpClient) => Promise<T>): Promise<T> {
  const cdp = await CdpClient.open(pipe, 2_000);
  try {
    return await work(cdp);
  } finally {
    cdp.close();
  }
}

const pagesOf = async (cdp: CdpClient): Promise<TargetInfo[]> =>
  ((await cdp.send<{ targetInfos: TargetInfo[] }>("Target.getTargets")).targetInfos ?? []).filter((t) => t.type === "page");

/** The active tab's title and address (active-tab.ts: the tab the live view, the recording and the fill use); null when there is none. */
export async function activePage(pipe: CdpPipe): Promise<OpenPage | null> {
  return withClient(pipe, async (cdp) => {
    const page = await activeTab(cdp, pipe, await pagesOf(cdp));
    return page ? pageSummary(page) : null;
  });
}

/**
 * Sends the first page tab to `url` without waiting for it to load (the egress policy judges it like
 * any other navigation). Resolves once the navigation is asked for.
 */
export async function navigateFirstPage(pipe: CdpPipe, url: string): Promise<void> {
  await withClient(pipe, async (cdp) => {
    const page = (await pagesOf(cdp))[0];
    if (!page) {
      await cdp.send("Target.createTarget", { url });
      return;
    }
    const { sessionId: attachmentId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true });
    await cdp.send("Page.navigate", { url }, attachmentId);
    await cdp.send("Target.detachFromTarget", { sessionId: attachmentId }).catch(() => {});
  });
}
