// The client side of bench/page-steps.ts, in a process of its own (load never shares the servers'
// event loop): a page server on loopback, and puppeteer-core rounds of new page → goto → evaluate
// → close on whatever browser endpoint the parent names. Loopback only.
import http from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer from "puppeteer-core";

export interface StepsRequest {
  endpoint: string;
  rounds: number;
}
/** Each step's time per round, ms; `connect` and `firstByte` from Chromium's own Network timing of the load. */
export type StepsReply = Record<"newPage" | "goto" | "evaluate" | "close" | "connect" | "firstByte", number[]>;

const PAGE = "<!doctype html><html><head><title>bench</title></head><body><p>hello from the bench page</p></body></html>";
// `Connection: close`: every load opens a connection of its own, on every side alike.
const server = http.createServer((_req, res) => {
  res.writeHead(200, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(PAGE),
    "cache-control": "no-store",
    connection: "close",
  });
  res.end(PAGE);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

process.on("message", (request: StepsRequest) => {
  void (async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: request.endpoint, protocolTimeout: 30_000 });
    const reply: StepsReply = { newPage: [], goto: [], evaluate: [], close: [], connect: [], firstByte: [] };
    let mark = 0;
    const lap = (into: number[]) => {
      const now = performance.now();
      into.push(now - mark);
      mark = now;
    };
    for (let i = 0; i < request.rounds; i++) {
      mark = performance.now();
      const page = await browser.newPage();
      lap(reply.newPage);
      const response = await page.goto(url, { timeout: 30_000 });
      if (!response?.ok()) throw new Error(`goto ${url}: ${response?.status() ?? "no response"}`);
      lap(reply.goto);
      const timing = response.timing();
      if (timing) {
        reply.connect.push(timing.connectEnd - timing.connectStart);
        reply.firstByte.push(timing.receiveHeadersEnd - timing.sendStart);
      }
      await page.evaluate("1+1");
      lap(reply.evaluate);
      await page.close();
      lap(reply.close);
    }
    await browser.disconnect();
    process.send!(reply);
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
process.on("disconnect", () => process.exit(0));
process.send!({ ready: true });
