// Derives the recorded half of Vessel's CDP allow-list (issue 17): launches Debian's Chromium,
// puts a recording WebSocket relay of its own in front of it, drives the workloads of
// scripts/lib/cdp-workloads.ts (Puppeteer, Playwright connectOverCDP, chrome-remote-interface)
// through the relay, and writes every method a client sent, sorted, with the clients that sent it,
// to src/browser/cdp-recorded-methods.ts. Then it judges every recorded message with the policy
// built from that file and fails when any is refused: the workloads must work through Vessel.
//
//   npm run record:cdp-methods                 (re-run after upgrading a client or Chromium)
//   RECORD_CHROMIUM=/usr/lib/chromium/chromium-headless-shell   RECORD_DUMP=/tmp/cdp.jsonl (every message)
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket, { WebSocketServer } from "ws";
import { chromeRemoteInterfaceWorkload, playwrightWorkload, puppeteerWorkload, startSite } from "./lib/cdp-workloads.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const output = path.join(root, "src/browser/cdp/policy/recorded-methods.ts");
const executable = process.env.RECORD_CHROMIUM ?? "/usr/lib/chromium/chromium-headless-shell";

interface Recorded {
  client: string;
  method: string;
  params: unknown;
}

/** Starts Chromium with a DevTools port of its own choosing; resolves with its browser address. */
async function launch(profile: string): Promise<{ endpoint: string; version: string; stop(): Promise<void> }> {
  const args = [
    "--headless",
    "--remote-debugging-port=0",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    `--user-data-dir=${profile}`,
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), // Chromium's sandbox refuses to run as root
    "about:blank",
  ];
  const child = spawn(executable, args, { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const orphaned = () => child.kill("SIGKILL"); // a workload that throws from an event handler ends the process
  process.once("exit", orphaned);
  const endpoint = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not start:\n${seen}`)), 20_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`Chromium exited (${code}):\n${seen}`)));
  });
  const version = (await (await fetch(`http://${new URL(endpoint).host}/json/version`)).json()) as { Browser: string };
  return {
    endpoint,
    version: version.Browser,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      process.off("exit", orphaned);
    },
  };
}

/**
 * The recording relay: every WebSocket upgrade is forwarded to the same path on Chromium, and each
 * client→browser message is recorded (under the `client` query parameter, which is not forwarded)
 * before it is sent on unchanged. Browser→client messages pass untouched.
 */
async function startRelay(upstreamHost: string, recorded: Recorded[]): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://relay");
    const client = url.searchParams.get("client") ?? "unknown";
    url.searchParams.delete("client");
    const upstream = new WebSocket(`ws://${upstreamHost}${url.pathname}${url.search}`, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    upstream.once("error", () => socket.destroy());
    upstream.once("open", () =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on("message", (data: Buffer, isBinary) => {
          const message = JSON.parse(data.toString("utf8")) as { method?: unknown; params?: unknown };
          if (typeof message.method === "string") recorded.push({ client, method: message.method, params: message.params });
          upstream.send(data, { binary: isBinary });
        });
        upstream.on("message", (data: Buffer, isBinary) => ws.readyState === WebSocket.OPEN && ws.send(data, { binary: isBinary }));
        ws.on("close", () => upstream.close());
        upstream.on("close", () => ws.close());
        ws.on("error", () => upstream.terminate());
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function versionOf(pkg: string): string {
  const require = createRequire(import.meta.url);
  return (require(`${pkg}/package.json`) as { version: string }).version;
}

async function writeMethods(recorded: Recorded[], chromiumVersion: string): Promise<string[]> {
  const clients = new Map<string, Set<string>>();
  for (const { client, method } of recorded) (clients.get(method) ?? clients.set(method, new Set()).get(method)!).add(client);
  const methods = [...clients.keys()].sort();
  const lines = [
    "// generated by scripts/record-cdp-methods.ts (npm run record:cdp-methods): do not edit, re-run it.",
    "// Every CDP method Puppeteer, Playwright (connectOverCDP) and chrome-remote-interface sent while",
    "// driving the workloads of scripts/lib/cdp-workloads.ts; src/browser/cdp/policy/policy.ts allows them, with",
    "// the curated methods of browser/cdp/policy/allowlist.ts. Recorded with",
    `// ${chromiumVersion}, puppeteer-core ${versionOf("puppeteer-core")}, playwright-core ${versionOf("playwright-core")}, chrome-remote-interface ${versionOf("chrome-remote-interface")}.`,
    "export const recordedMethods: readonly string[] = [",
    ...methods.map((m) => `  ${JSON.stringify(m)}, // ${[...clients.get(m)!].sort().join(", ")}`),
    "];",
    "",
  ];
  await fs.writeFile(output, lines.join("\n"));
  return methods;
}

async function main(): Promise<number> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "vessel-record-cdp-"));
  const folder = path.join(work, "downloads"); // stands for a session's own folder
  await fs.mkdir(folder);
  const recorded: Recorded[] = [];
  const site = await startSite();
  const chromium = await launch(path.join(work, "profile"));
  const relay = await startRelay(new URL(chromium.endpoint).host, recorded);
  const browserPath = new URL(chromium.endpoint).pathname;
  const through = (client: string) => `${relay.origin}${browserPath}?client=${client}`;
  try {
    await chromeRemoteInterfaceWorkload(through("chrome-remote-interface"), relay.origin, "client=chrome-remote-interface", site.url);
    await playwrightWorkload(through("playwright"), site.url);
    await puppeteerWorkload(through("puppeteer"), site.url, folder); // last: it closes the browser
  } finally {
    await relay.close();
    await chromium.stop();
    await site.close();
    await fs.rm(work, { recursive: true, force: true });
  }
  if (process.env.RECORD_DUMP) await fs.writeFile(process.env.RECORD_DUMP, recorded.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const methods = await writeMethods(recorded, chromium.version);
  console.log(`${recorded.length} messages, ${methods.length} methods → ${path.relative(root, output)}`);

  // The policy built from the file just written must let every recorded message through.
  const { judgeCommand } = await import("../src/browser/cdp/policy/policy.ts");
  const counts = { pass: 0, refuse: 0, rewrite: 0 };
  const refused = new Set<string>();
  for (const { client, method, params } of recorded) {
    const verdict = judgeCommand(method, params, { downloads: folder });
    counts[verdict.kind]++;
    if (verdict.kind === "refuse") refused.add(`${client} ${method}: ${verdict.reason}`);
  }
  console.log(`judged by the policy: ${counts.pass} pass, ${counts.rewrite} rewritten (download folders), ${counts.refuse} refused`);
  for (const what of refused) console.error(`  REFUSED ${what}`);
  return counts.refuse === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
