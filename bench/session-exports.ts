// What the HAR asks of the session's log, and what building one costs (record 0360): the size of a
// typical `network` entry before and after it kept headers and phases (the log's bounds are in
// bytes, so this is how many fewer requests a log holds), and the time to build the HAR of a full
// log (VESSEL_LOGS_MAX_ENTRIES, 20 000 entries). No server, no browser: the real NetworkTracker and
// buildHar over Chromium-shaped events.
//
//   npx tsx bench/session-exports.ts
//   BENCH_ENTRIES=20000   entries in the log whose HAR is built
import { NetworkTracker, type NetworkData } from "../src/browser/logs/network.ts";
import { buildHar } from "../src/services/session-exports/har.ts";
import type { SessionLogEntryView } from "../src/services/session-logs/log-entries.ts";
import { f, median, num } from "./support.ts";

const entries = num("BENCH_ENTRIES", 20_000);

// What Chromium 13x sends and a CDN answers for a script, roughly.
const requestHeaders = {
  "sec-ch-ua": '"Chromium";v="131", "Not_A Brand";v="24"',
  "sec-ch-ua-mobile": "?0",
  "sec-ch-ua-platform": '"Linux"',
  "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  Accept: "*/*",
  Referer: "https://shop.example.com/checkout?step=2&session=abc",
  "Accept-Language": "en-GB,en;q=0.9",
};
const responseHeaders = {
  "content-type": "application/javascript; charset=utf-8",
  "content-length": "48211",
  "cache-control": "public, max-age=31536000, immutable",
  etag: '"5f1c-18a3b2c"',
  "last-modified": "Tue, 12 Nov 2026 09:12:44 GMT",
  date: "Sun, 29 Nov 2026 07:00:00 GMT",
  server: "cdn",
  vary: "Accept-Encoding",
  "set-cookie": "__cf_bm=abcdef; path=/; secure; HttpOnly",
};
const timing = {
  requestTime: 10.001,
  dnsStart: 0.2,
  dnsEnd: 3.1,
  connectStart: 3.1,
  connectEnd: 20.4,
  sslStart: 8,
  sslEnd: 20.3,
  sendStart: 20.6,
  sendEnd: 20.9,
  receiveHeadersEnd: 61.2,
};

function oneEntry(i: number): NetworkData {
  let out: NetworkData | undefined;
  const n = new NetworkTracker((d) => (out = d));
  n.willBeSent({
    requestId: String(i),
    loaderId: "L1",
    frameId: "F1",
    request: { url: `https://cdn.example.com/app.${i}.js`, method: "GET", headers: requestHeaders },
    type: "Script",
    timestamp: 10,
    wallTime: 1_764_400_000 + i / 100,
  });
  n.responseReceived({
    requestId: String(i),
    response: {
      status: 200,
      statusText: "OK",
      mimeType: "application/javascript",
      headers: responseHeaders,
      timing,
      protocol: "h2",
      remoteIPAddress: "203.0.113.7",
    },
  });
  n.finished({ requestId: String(i), timestamp: 10.08, encodedDataLength: 48_500 });
  return out!;
}

const sample = oneEntry(0);
const withDetail = Buffer.byteLength(JSON.stringify(sample));
const { request_headers, response_headers, timings, loader_id, frame_id, redirect_url, http_version, server_ip, ...summary } = sample;
const before = Buffer.byteLength(JSON.stringify(summary));
console.log(`network entry: ${before} B before, ${withDetail} B with headers and phases (×${f(withDetail / before, 2)})`);
console.log(`requests an 8 MiB log holds: about ${Math.floor((8 * 1024 * 1024) / before)} before, ${Math.floor((8 * 1024 * 1024) / withDetail)} now`);

const log: SessionLogEntryView[] = [
  {
    seq: 1,
    type: "navigation",
    at: new Date(1_764_400_000_000),
    data: { url: "https://shop.example.com/", main_frame: true, same_document: false, loader_id: "L1" },
  },
];
for (let i = 1; i < entries; i++)
  log.push({ seq: i + 1, type: "network", at: new Date(1_764_400_000_000 + i), data: { ...oneEntry(i), page_url: "https://shop.example.com/" } });
const runs: number[] = [];
for (let r = 0; r < 5; r++) {
  const start = performance.now();
  const har = buildHar(log);
  const text = JSON.stringify(har);
  runs.push(performance.now() - start);
  if (r === 0) console.log(`HAR of ${entries} entries: ${f(text.length / 1024 / 1024)} MiB of JSON`);
}
console.log(`build + stringify, median of 5: ${f(median(runs))} ms (${f((median(runs) * 1000) / entries, 2)} µs per entry)`);
