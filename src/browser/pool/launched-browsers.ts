// Every browser the pool has launched and not yet closed, with its parts, and the launches still in
// flight: the bookkeeping stop() needs to wait for and close them all, kept apart from pool.ts, which
// decides when to launch and who gets a browser.
import type { Logger } from "../../logger.ts";
import type { ChromiumProcess } from "../launch/chromium.ts";
import { launchPoolBrowser, type PoolBrowser } from "./pooled-browser.ts";
import type { BrowserPoolOptions } from "./types.ts";

export class LaunchedBrowsers {
  readonly #opts: BrowserPoolOptions;
  readonly #log: Logger;
  /** Every browser launched and not closed yet, for stop(). */
  readonly #browsers = new Set<ChromiumProcess>();
  /** Each browser's egress listener (closed after the browser) and download guard. */
  readonly #parts = new Map<ChromiumProcess, PoolBrowser>();
  /** Launches in flight (sessions and spares), for stop(). */
  readonly #inflight = new Set<Promise<unknown>>();
  #launches = 0;

  constructor(opts: BrowserPoolOptions, log: Logger) {
    this.#opts = opts;
    this.#log = log;
  }

  /** How many browsers have been launched (spares and sessions), successful or not. */
  get launches(): number {
    return this.#launches;
  }

  /** A browser's egress listener and download guard, while it is open. */
  partsOf(browser: ChromiumProcess): PoolBrowser | undefined {
    return this.#parts.get(browser);
  }

  /** Launches one browser, tracked so stop() can wait for it and close it. */
  launch(): Promise<ChromiumProcess> {
    this.#launches++;
    const launch = (async () => {
      const parts = await launchPoolBrowser(this.#opts, this.#log);
      const { browser, listener } = parts;
      this.#browsers.add(browser);
      this.#parts.set(browser, parts);
      // Whatever ends the main process (release, crash, kill), the rest of the group and the
      // folder go too; close() is idempotent, so a release racing with this is fine.
      void browser.exited
        .then(() => browser.close())
        .then(() => listener?.close())
        .finally(() => {
          this.#parts.get(browser)?.guard?.close();
          this.#parts.delete(browser);
          this.#browsers.delete(browser);
        });
      return browser;
    })();
    this.#inflight.add(launch);
    void launch.finally(() => this.#inflight.delete(launch)).catch(() => {});
    return launch;
  }

  /** Waits for the launches in flight to finish, failed or not. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inflight]);
  }

  /** Closes every browser still open and waits for them. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#browsers].map((b) => b.close()));
  }
}
