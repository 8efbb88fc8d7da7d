import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";

/**
 * The DevTools protocol description (`GET /json/protocol`), the document chrome-remote-interface
 * fetches before it connects (unless given `local: true`). It asks for it at the root of the host in
 * the connect_url, without the path or the token, so it is served to anyone: it describes Chromium,
 * not a session or a customer. Chromium builds it into its own HTTP server, which our browsers do not
 * run (they speak CDP on a pipe), and no CDP method returns it (Schema.getDomains is gone), so the
 * description comes from devtools-protocol: the package puppeteer-core (a dependency) is built
 * against, resolved through it (docs/decisions/0310).
 */

let cached: Promise<string> | undefined;

/** The description as Chromium's `/json/protocol` answers it: `{version, domains}`, browser then JavaScript domains (as Chromium lists them). Read once. */
export function protocolDescription(): Promise<string> {
  cached ??= load().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function load(): Promise<string> {
  const viaPuppeteer = createRequire(createRequire(import.meta.url).resolve("puppeteer-core"));
  const read = async (file: string) =>
    JSON.parse(await readFile(viaPuppeteer.resolve(`devtools-protocol/json/${file}`), "utf8")) as {
      version: { major: string; minor: string };
      domains: unknown[];
    };
  const [browser, js] = await Promise.all([read("browser_protocol.json"), read("js_protocol.json")]);
  return JSON.stringify({ version: browser.version, domains: [...browser.domains, ...js.domains] });
}

/** `GET /json/protocol` (and `/cdp/json/protocol`): the description, cacheable like any static document. */
export async function handleProtocolDescription(_req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await protocolDescription();
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "public, max-age=3600");
  res.end(body);
}
