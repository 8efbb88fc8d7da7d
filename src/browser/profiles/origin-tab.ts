import type { CdpClient } from "../cdp/pipe/client.ts";

/**
 * localStorage can only be read or written from a document of its origin. This opens a throw-away
 * tab in the browser's default context, points it at each origin in turn, and answers every request
 * it makes from here with an empty page (`Fetch.fulfillRequest`): the origin's server is never
 * contacted, no cookie leaves the browser, no service worker answers, and no page script runs. `use`
 * runs once per origin with the tab's flattened attachment id (CDP's sessionId); the tab is closed, and gone, before this
 * resolves. (Playwright reads and writes `storageState` the same way.) Returns the origins this
 * Chromium refused to open (none of its pages could have storage there either).
 */
export async function withOriginTab(cdp: CdpClient, origins: string[], use: (origin: string, tabSession: string) => Promise<void>): Promise<string[]> {
  const skipped: string[] = [];
  if (origins.length === 0) return skipped;
  const { targetId } = await cdp.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
  let tab: string | undefined;
  let stop = () => {};
  try {
    ({ sessionId: tab } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true }));
    const attachment = tab;
    stop = cdp.on("Fetch.requestPaused", (p: { requestId: string }, s) => {
      if (s !== attachment) return;
      void cdp
        .send(
          "Fetch.fulfillRequest",
          {
            requestId: p.requestId,
            responseCode: 200,
            body: emptyPage,
            responseHeaders: [
              { name: "Content-Type", value: "text/html; charset=utf-8" },
              { name: "Cache-Control", value: "no-store" },
            ],
          },
          attachment,
        )
        .catch(() => {});
    });
    await cdp.send("Network.setBypassServiceWorker", { bypass: true }, attachment).catch(() => {});
    await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] }, attachment);
    await cdp.send("Page.enable", {}, attachment);
    for (const origin of origins) {
      const loaded = cdp.waitFor("Page.loadEventFired", (_p, s) => s === attachment);
      const nav = await cdp.send<{ errorText?: string }>("Page.navigate", { url: `${origin}/` }, attachment);
      if (nav.errorText) {
        // This Chromium will not open it (an unsafe port, say): no page of it can use storage either.
        loaded.catch(() => {});
        skipped.push(origin);
        continue;
      }
      await loaded;
      await use(origin, attachment);
    }
  } finally {
    stop();
    // A client connected to the session sees the tab come and go; the restore runs before any client can.
    const gone = tab ? cdp.waitFor("Target.detachedFromTarget", (p: { sessionId: string }) => p.sessionId === tab, 5_000) : undefined;
    await cdp.send("Target.closeTarget", { targetId }).catch(() => {});
    await gone?.catch(() => {});
  }
  return skipped;
}

const emptyPage = Buffer.from("<!doctype html><title></title>", "utf8").toString("base64");

/** Evaluates `expression` in the tab's current document and returns its value; never echoes page data in errors. */
export async function evaluateIn<T>(cdp: CdpClient, tabSession: string, expression: string): Promise<T> {
  const { result, exceptionDetails } = await cdp.send<{ result: { value?: unknown }; exceptionDetails?: { text?: string } }>(
    "Runtime.evaluate",
    { expression, returnByValue: true },
    tabSession,
  );
  if (exceptionDetails) throw new Error(`evaluation failed (${exceptionDetails.text ?? "exception"})`);
  return result.value as T;
}
