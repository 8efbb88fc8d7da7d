import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import puppeteer from "puppeteer-core";
import { bearer, seedWorkspace, type TestApp } from "./app.ts";
import { chromiumPath } from "./services.ts";
import { eventually } from "./sessions.ts";

/**
 * What clients/scenarios.json asks of the world around a client, served over HTTP so the Python and
 * the TypeScript scenario runners reach the very same actions: a proxy in front of the server that
 * fails on cue or records what it saw, a real browser that clicks Done in a live view, a page
 * drawn in a session (for its recording), the workspace's session count. Each runner gets its own harness and fresh workspaces.
 */
export interface ClientHarness {
  url: string;
  keys: { primary: string; limited: string; wrong: string };
  close(): Promise<void>;
}

interface ProxyRecord {
  method: string;
  path: string;
  key: string | null;
  status: number | null;
}

type Action = (args: Record<string, unknown>) => Promise<unknown>;

export async function startClientHarness(t: TestApp): Promise<ClientHarness> {
  const primary = await seedWorkspace(t);
  const limited = await seedWorkspace(t, { rateLimitPerMinute: 2 });
  // The key with its last character changed to one it is not: well-formed, unknown.
  const wrong = `${primary.key.slice(0, -1)}${primary.key.endsWith("x") ? "y" : "x"}`;
  const keys = { primary: primary.key, limited: limited.key, wrong };
  const proxies: Array<{ server: http.Server; log: ProxyRecord[] }> = [];
  let viewer: Promise<Browser> | undefined;
  let lastCount: number | undefined;

  const sessionCount = () => t.app.deps.db.prisma.session.count({ where: { workspaceId: primary.workspace.id } });
  const release = (id: string) =>
    fetch(`${t.url}/v1/sessions/${id}`, {
      method: "PATCH",
      headers: { ...bearer(primary.key), "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });

  const actions: Record<string, Action> = {
    setup: async () => ({ base_url: t.url, keys }),
    proxy: async (args) => {
      const proxy = await startProxy(t.url, (args.fail as string[] | undefined) ?? [], args.release_on_503 as string | undefined, release);
      proxies.push(proxy);
      return { id: proxies.length - 1, url: proxy.url };
    },
    proxy_log: async (args) => {
      const log = proxies[Number(args.id)]!.log;
      const creates = log.filter((r) => r.method === "POST" && r.path === "/v1/sessions");
      return {
        requests: log,
        statuses: log.map((r) => r.status),
        create_statuses: creates.map((r) => r.status),
        create_keys: new Set(creates.map((r) => r.key)).size,
        last_create_status: creates.at(-1)?.status ?? null,
      };
    },
    session_count: async () => {
      const count = await sessionCount();
      const delta = lastCount === undefined ? null : count - lastCount;
      lastCount = count;
      return { count, delta };
    },
    click_done: async (args) => {
      viewer ??= chromium.launch({ executablePath: chromiumPath(), args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu"] });
      const context = await (await viewer).newContext({ viewport: { width: 1000, height: 700 } });
      try {
        const page = await context.newPage();
        await page.goto(String(args.live_view_url));
        await page.waitForFunction(() => document.getElementById("state")?.textContent === "Live", null, { timeout: 30_000 });
        await page.click("#done");
        await page.waitForFunction(() => /^Done sent/.test(document.getElementById("done-status")?.textContent ?? ""), null, { timeout: 30_000 });
        return { clicked: true };
      } finally {
        await context.close();
      }
    },
    visit: async (args) => {
      // Something for the screen recording to see: a page drawn, then a moment for its frames.
      const browser = await puppeteer.connect({ browserWSEndpoint: String(args.connect_url) });
      try {
        const [tab = await browser.newPage()] = await browser.pages();
        await tab.setContent('<body style="margin:0;background:#1f6feb;height:100vh"><h1>recorded</h1></body>');
        await new Promise((r) => setTimeout(r, 1500));
      } finally {
        await browser.disconnect();
      }
      return { visited: true };
    },
    release: async (args) => {
      await new Promise((r) => setTimeout(r, Number(args.after_ms ?? 0)));
      // when_queued: only once a session of the workspace waits in the admission queue (the call beside it queued).
      if (args.when_queued)
        await eventually(
          () => t.app.deps.db.prisma.session.count({ where: { workspaceId: primary.workspace.id, status: "QUEUED" } }),
          (n) => n > 0,
          30_000,
        );
      const answer = await release(String(args.id));
      return { status: answer.status };
    },
    release_all: async () => {
      const running = await t.app.deps.db.prisma.session.findMany({
        where: { workspaceId: primary.workspace.id, status: { in: ["PENDING", "RUNNING"] } },
        select: { id: true },
      });
      for (const { id } of running) await release(id);
      return { released: running.length };
    },
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const action = actions[(req.url ?? "/").slice(1)];
      if (!action) return void res.writeHead(404).end();
      let body = "";
      for await (const chunk of req) body += String(chunk);
      try {
        const result = await action(body ? (JSON.parse(body) as Record<string, unknown>) : {});
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
      } catch (err) {
        res.writeHead(500, { "content-type": "text/plain" }).end(String((err as Error).stack ?? err));
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keys,
    async close() {
      for (const p of proxies) await closeServer(p.server);
      await closeServer(server);
      if (viewer) await (await viewer).close();
    },
  };
}

/**
 * A proxy to the server: it answers its first requests with `fail` (a status, or `reset` to drop the
 * connection unanswered), forwards the rest, and records each request's method, path,
 * Idempotency-Key and the status the client got. With `releaseOn503`, the first create the server
 * refuses as full frees a slot by releasing that session, so the client's retry can succeed.
 */
async function startProxy(upstream: string, fail: string[], releaseOn503: string | undefined, release: (id: string) => Promise<Response>) {
  const log: ProxyRecord[] = [];
  const failures = [...fail];
  let released = false;
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const record: ProxyRecord = {
        method: req.method ?? "GET",
        path: new URL(req.url ?? "/", "http://x").pathname,
        key: (req.headers["idempotency-key"] as string) ?? null,
        status: null,
      };
      log.push(record);
      const failure = failures.shift();
      if (failure === "reset") return void req.socket.destroy();
      if (failure) {
        record.status = Number(failure);
        return void res.writeHead(record.status, { "content-type": "text/plain" }).end("injected failure");
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "connection", "content-length"].includes(k))) as Record<
        string,
        string
      >;
      const answer = await fetch(`${upstream}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
      const body = Buffer.from(await answer.arrayBuffer());
      if (answer.status === 503 && releaseOn503 && !released && record.path === "/v1/sessions") {
        released = true;
        await release(releaseOn503);
      }
      record.status = answer.status;
      const out = Object.fromEntries(
        [...answer.headers].filter(([k]) => !["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"].includes(k)),
      );
      res.writeHead(answer.status, out).end(body);
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, log, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((r) => server.close(() => r()));
}
