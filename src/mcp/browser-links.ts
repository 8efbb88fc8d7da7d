/**
 * The browser links (Puppeteer connections) of one MCP connection: one per browser session it drives, opened on that
 * session's own `connect_url` (so the CDP policy and the egress policy judge the tools exactly as
 * they judge any client), kept while the MCP connection lasts, closed on release or when it ends.
 * Each link remembers the tab the tools act on and names tabs `t1`, `t2`… in the order it sees them.
 */
import puppeteer, { type Browser, type CDPSession, type Page } from "puppeteer-core";
import { ToolError } from "./tool-call.ts";

interface Link {
  browser: Browser;
  current: Page | null;
  tabIds: WeakMap<Page, string>;
  nextTab: number;
  cdp: WeakMap<Page, CDPSession>;
}

export class BrowserLinks {
  private readonly links = new Map<string, Promise<Link>>();

  /** `connectUrlOf` answers the session's connect_url (checked against the caller's workspace), or throws. */
  async link(sessionId: string, connectUrlOf: () => Promise<string>): Promise<Link> {
    const known = this.links.get(sessionId);
    if (known) return known;
    // Forgets this link only: a newer one for the same session may have taken its place.
    const forget = () => {
      if (this.links.get(sessionId) === link) this.links.delete(sessionId);
    };
    const link: Promise<Link> = (async () => {
      const url = await connectUrlOf();
      const browser = await puppeteer.connect({ browserWSEndpoint: url, defaultViewport: null, protocolTimeout: 60_000 });
      // The session ended, or its socket dropped: the next call connects again (or learns it ended).
      browser.once("disconnected", forget);
      return { browser, current: null, tabIds: new WeakMap(), nextTab: 1, cdp: new WeakMap() };
    })();
    this.links.set(sessionId, link);
    link.catch(forget);
    return link;
  }

  /** The tab the tools act on: the one switched to, else the first open tab (one is opened if none is). */
  async page(link: Link): Promise<Page> {
    if (link.current && !link.current.isClosed()) return link.current;
    const pages = await link.browser.pages();
    link.current = pages[0] ?? (await link.browser.newPage());
    return link.current;
  }

  async tabs(link: Link): Promise<Array<{ id: string; page: Page; current: boolean }>> {
    const current = await this.page(link);
    return (await link.browser.pages()).map((page) => ({ id: this.tabId(link, page), page, current: page === current }));
  }

  tabId(link: Link, page: Page): string {
    let id = link.tabIds.get(page);
    if (!id) {
      id = `t${link.nextTab++}`;
      link.tabIds.set(page, id);
    }
    return id;
  }

  async switchTo(link: Link, tabId: string): Promise<Page> {
    const tab = (await this.tabs(link)).find((t) => t.id === tabId);
    if (!tab) throw new ToolError(`There is no tab ${tabId}; list_tabs shows the open tabs.`);
    await tab.page.bringToFront();
    link.current = tab.page;
    return tab.page;
  }

  /** A raw CDP channel to the tab (element references are the DOM's backend node ids). */
  async cdp(link: Link, page: Page): Promise<CDPSession> {
    let session = link.cdp.get(page);
    if (!session || session.detached) {
      session = await page.createCDPSession();
      link.cdp.set(page, session);
    }
    return session;
  }

  /** Closes the connection to one session (its browser keeps running). */
  async close(sessionId: string): Promise<void> {
    const link = this.links.get(sessionId);
    this.links.delete(sessionId);
    if (link) await link.then((l) => l.browser.disconnect()).catch(() => {});
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.links.keys()].map((id) => this.close(id)));
  }

  get size(): number {
    return this.links.size;
  }
}

export type { Link };
