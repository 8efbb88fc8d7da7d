// How large request bodies on /graphql hold up everyone else: /healthz p50/p99 while 4 clients post
// 23 MB GraphQL bodies in a loop, anonymous and then with an API key (issue 41, point 6; decision
// 0145). The node is the real entry point in a process of its own (embedded default, no browsers);
// traffic is loopback only and each phase is bounded in time.
//
//   npm run bench:graphql-body            BENCH_FLOOD_SECONDS (default 8), BENCH_BODY_MB (default 23)
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { f, num, pct } from "./support.ts";

const root = path.resolve(import.meta.dirname, "..");
const FLOOD_MS = num("BENCH_FLOOD_SECONDS", 8) * 1000;
const BODY_BYTES = num("BENCH_BODY_MB", 23) * 1024 * 1024;
const FLOODERS = 4;
const PROBE_EVERY_MS = 20;

/**
 * A GraphQL request padded to BODY_BYTES with a variable the query does not declare (so execution
 * ignores it): many short strings (its JSON costs the most per byte to parse and to copy between
 * threads) or one long string (as a file sent as base64 would be).
 */
function bigBody(shape: "many values" | "one string"): Buffer {
  const query = '{"query":"{ health { version } }","variables":{"pad":';
  if (shape === "one string") return Buffer.from(`${query}"${"QUJD".repeat(Math.floor((BODY_BYTES - 100) / 4))}"}}`);
  const item = '"abcdefgh",';
  return Buffer.from(`${query}[${item.repeat(Math.floor((BODY_BYTES - 100) / item.length))}"x"]}}`);
}

function post(port: number, body: Buffer, key?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/graphql",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": body.length, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0)); // an early answer may cut the upload short
    req.end(body);
  });
}

function healthz(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    http
      .get({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(performance.now() - started));
      })
      .on("error", () => resolve(Number.NaN));
  });
}

async function phase(port: number, body: Buffer | undefined, key?: string) {
  const until = Date.now() + FLOOD_MS;
  const statuses = new Map<number, number>();
  const flooders = body
    ? Array.from({ length: FLOODERS }, async () => {
        while (Date.now() < until) {
          const status = await post(port, body, key);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      })
    : [];
  const latencies: number[] = [];
  while (Date.now() < until) {
    latencies.push(await healthz(port));
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  await Promise.all(flooders);
  return { p50: pct(latencies, 50), p99: pct(latencies, 99), probes: latencies.length, statuses: Object.fromEntries(statuses) };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-body-"));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      VESSEL_DATA_DIR: dataDir,
      VESSEL_BROWSER_WARM: "0",
      VESSEL_BROWSER_JAIL: "off",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (d) => (output += d));
  try {
    const keyFile = path.join(dataDir, "first-api-key");
    for (let i = 0; i < 600 && !fs.existsSync(keyFile); i++) await new Promise((r) => setTimeout(r, 100));
    if (!fs.existsSync(keyFile)) throw new Error(`the node did not start:\n${output}`);
    const key = fs.readFileSync(keyFile, "utf8").trim();
    const many = bigBody("many values");
    const one = bigBody("one string");
    console.log(`/healthz latency (ms) while ${FLOODERS} clients post ${f(many.length / 1024 / 1024)} MB GraphQL bodies for ${FLOOD_MS / 1000} s each`);
    const phases = [
      ["quiet", undefined, undefined],
      ["anonymous, many values", many, undefined],
      ["key, many values", many, key],
      ["key, one long string", one, key],
    ] as const;
    for (const [name, flood, withKey] of phases) {
      const r = await phase(port, flood, withKey);
      console.log(`${name.padEnd(24)} p50 ${f(r.p50).padStart(7)}  p99 ${f(r.p99).padStart(7)}  (${r.probes} probes; answers ${JSON.stringify(r.statuses)})`);
    }
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
