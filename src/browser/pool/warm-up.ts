import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";

/**
 * Readies a freshly launched browser's profile before a session gets it. Chromium creates some of
 * its profile stores on first use, and the first use is the client's first navigation: the cookie
 * database (SQLite: a dozen fdatasyncs on a disk-backed folder) and the HTTP cache's index. Measured
 * on this project's machine, that made the first `goto` in a fresh browser ~20 ms slower than in a
 * browser that had already navigated once (bench/sessions). Opening them here moves that cost to
 * the spare's idle time.
 *
 * What a client can see afterwards is what it saw before: the same single about:blank page, no
 * cookies, an empty cache.
 */
export async function warmUpProfile(pipe: CdpPipe, timeoutMs = 5_000): Promise<void> {
  const cdp = await CdpClient.open(pipe, timeoutMs);
  // One deadline for the whole warm-up: closing the connection fails whatever call is pending.
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    cdp.close();
  }, timeoutMs);
  try {
    // The cookie store loads (here: creates its database) before it answers.
    await cdp.send("Storage.getCookies");
    // The HTTP cache's backend is created on first use; clearing the (empty) cache is a use.
    // Network.* needs a page: the browser's own about:blank, attached to for this call only.
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
    const page = targetInfos.find((t) => t.type === "page");
    if (page) {
      const { sessionId: attachmentId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true });
      await cdp.send("Network.clearBrowserCache", {}, attachmentId);
      await cdp.send("Target.detachFromTarget", { sessionId: attachmentId });
    }
    // A fresh browser's first new tab, with the domains a client enables on it, opens slower than
    // later ones, and its first page loads slower (bench/sessions; warmed side by side: new page
    // 46.7 → 43.5 ms, first load 27.1 → 25.9 ms). One such tab, opened and closed here, pays that;
    // it is gone before the browser is offered.
    const { targetId } = await cdp.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
    const { sessionId: tab } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
    await Promise.all(["Page.enable", "Runtime.enable", "Network.enable"].map((method) => cdp.send(method, {}, tab)));
    await cdp.send("Target.closeTarget", { targetId });
    for (let i = 0; i < 100; i++) {
      const { targetInfos: left } = await cdp.send<{ targetInfos: Array<{ targetId: string }> }>("Target.getTargets");
      if (!left.some((t) => t.targetId === targetId)) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } catch (err) {
    throw timedOut ? new Error(`the browser warm-up took longer than ${timeoutMs} ms`) : err;
  } finally {
    clearTimeout(deadline);
    cdp.close();
  }
}
