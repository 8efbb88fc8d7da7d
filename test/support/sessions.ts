import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import { bearer, type TestApp } from "./app.ts";

export interface SessionBody {
  id: string;
  status: string;
  end_reason: string | null;
  connect_url: string | null;
  live_view_url: string | null;
  expires_at: string;
}

export async function createSession(
  t: TestApp,
  key: string,
  body: Record<string, unknown> = { region: "us-east1" },
  idempotencyKey: string | null = randomUUID(),
): Promise<{ res: Response; body: SessionBody }> {
  const headers: Record<string, string> = { ...bearer(key), "content-type": "application/json" };
  if (idempotencyKey !== null) headers["idempotency-key"] = idempotencyKey;
  const res = await fetch(`${t.url}/v1/sessions`, { method: "POST", headers, body: JSON.stringify(body) });
  return { res, body: (await res.json()) as SessionBody };
}

export async function getSession(t: TestApp, key: string, id: string): Promise<SessionBody> {
  return (await (await fetch(`${t.url}/v1/sessions/${id}`, { headers: bearer(key) })).json()) as SessionBody;
}

export function releaseSession(t: TestApp, key: string, id: string): Promise<Response> {
  return fetch(`${t.url}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ status: "REQUEST_RELEASE" }),
  });
}

/** Polls until `check` holds (or fails the test after `ms`). */
export async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`condition not reached in ${ms} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A page on loopback for the browsers to open (they reach nothing else). */
export async function startPageServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end('<!doctype html><title>Vessel test page</title><h1 id="greeting">hello from loopback</h1>');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Established TCP connections to a local port, read from the kernel: proves what the proxy opened upstream. */
export function connectionsTo(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").slice(1) : [];
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      // cols[1] local address, cols[2] remote address, cols[3] state (01 = ESTABLISHED)
      if (cols[3] === "01" && cols[2]?.endsWith(`:${hex}`)) count++;
    }
  }
  return count;
}

/** Whether a process is alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

/** Opens a WebSocket and reports how the handshake ended: "open", or the HTTP status it was refused with. */
export function handshake(url: string): Promise<number | "open"> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on("open", () => {
      resolve("open");
      ws.close();
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => {});
  });
}
