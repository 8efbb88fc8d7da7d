/**
 * `vessel mcp`: the Vessel MCP server over stdio, for agents that start their tools as local
 * processes. The tools live once, on the server (`/mcp`, Streamable HTTP); this relays each JSON-RPC
 * message from stdin to it and each answer (JSON or an SSE stream, with its progress notifications)
 * back to stdout, one message per line, so every tool, its schema and its progress pass through
 * unchanged. Written on fetch alone: the package keeps no runtime dependency.
 */
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { Vessel } from "./index.ts";

type Message = { jsonrpc: "2.0"; id?: string | number | null; method?: string; result?: { protocolVersion?: string } };

export interface BridgeOptions {
  baseUrl: string;
  apiKey: string;
  input: Readable;
  /** One JSON-RPC message (a line of stdout). */
  write(line: string): void;
  /** Diagnostics (stderr: stdout carries only the protocol). */
  warn(text: string): void;
}

/** Runs until the input ends; then ends the MCP connection on the server. */
export async function runMcpBridge(o: BridgeOptions): Promise<void> {
  const endpoint = `${o.baseUrl.replace(/\/+$/, "")}/mcp`;
  let connectionId: string | null = null;
  let protocolVersion: string | null = null;
  /** Messages after initialize wait for its answer (they need the connection id it brings, `Mcp-Session-Id`). */
  let initialized: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();

  const headers = (): Record<string, string> => ({
    authorization: `Bearer ${o.apiKey}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "user-agent": "vessel-mcp",
    ...(connectionId ? { "mcp-session-id": connectionId } : {}),
    ...(protocolVersion ? { "mcp-protocol-version": protocolVersion } : {}),
  });

  const emit = (m: Message) => {
    if (m.result?.protocolVersion && !protocolVersion) protocolVersion = m.result.protocolVersion;
    o.write(JSON.stringify(m));
  };

  /** A request the server did not take gets a JSON-RPC error, so the agent is not left waiting. */
  const refuse = (m: Message, text: string) => {
    o.warn(`vessel mcp: ${text}`);
    if (m.id !== undefined && m.id !== null && m.method) emit({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: text } } as Message);
  };

  async function send(m: Message): Promise<void> {
    let res: Response;
    try {
      res = await fetch(endpoint, { method: "POST", headers: headers(), body: JSON.stringify(m) });
    } catch (err) {
      return refuse(m, `could not reach ${endpoint}: ${(err as Error).message}`);
    }
    if (m.method === "initialize") connectionId = res.headers.get("mcp-session-id") ?? connectionId;
    if (!res.ok) {
      const body = await res.text().catch(() => "");
      let detail = body.slice(0, 500);
      try {
        const parsed = JSON.parse(body) as { detail?: string; error?: { message?: string } };
        detail = parsed.detail ?? parsed.error?.message ?? detail;
      } catch {
        /* not JSON: the text as it came */
      }
      return refuse(m, `the server answered ${res.status}: ${detail}`);
    }
    const type = res.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream") && res.body) return relayEvents(res.body);
    if (type.includes("application/json")) {
      const body = (await res.json()) as Message | Message[];
      for (const each of Array.isArray(body) ? body : [body]) emit(each);
    }
  }

  /** Server-sent events: each `data:` block (of a `message` event) is one JSON-RPC message. */
  async function relayEvents(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    let data: string[] = [];
    let event = "message";
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line === "") {
          if (data.length > 0 && event === "message") {
            try {
              emit(JSON.parse(data.join("\n")) as Message);
            } catch {
              o.warn("vessel mcp: skipped an event that is not JSON");
            }
          }
          data = [];
          event = "message";
        } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        else if (line.startsWith("event:")) event = line.slice(6).trim();
      }
    }
  }

  const lines = createInterface({ input: o.input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let m: Message;
    try {
      m = JSON.parse(line) as Message;
    } catch {
      o.warn("vessel mcp: a line on stdin is not JSON; skipped");
      continue;
    }
    const before = initialized;
    const sending = m.method === "initialize" ? send(m) : before.then(() => send(m));
    if (m.method === "initialize") initialized = sending.catch(() => {});
    const tracked: Promise<void> = sending.catch((err: unknown) => refuse(m, (err as Error).message)).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.allSettled([...inFlight]);
  if (connectionId) await fetch(endpoint, { method: "DELETE", headers: headers() }).catch(() => {});
}

/** `vessel mcp` (cli.ts's command table holds it). */
export const mcpCommand = {
  usage: "vessel mcp",
  summary: "The Vessel MCP server on stdin/stdout, for agents that run MCP servers as local commands (VESSEL_API_KEY, VESSEL_BASE_URL).",
  async run({
    vessel,
    values,
    io,
  }: {
    vessel: Vessel;
    values: Record<string, unknown>;
    io: { env: Record<string, string | undefined>; err(text: string): void };
  }) {
    const apiKey = (values["api-key"] as string | undefined) ?? io.env.VESSEL_API_KEY ?? "";
    await runMcpBridge({
      baseUrl: vessel.baseUrl,
      apiKey,
      input: process.stdin,
      write: (line) => process.stdout.write(`${line}\n`),
      warn: (text) => io.err(text),
    });
  },
};
