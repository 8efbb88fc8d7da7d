import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";

/**
 * A recording relay for CDP clients: a WebSocket server on 127.0.0.1 that forwards every
 * connection, message for message, to the same path and query on `upstream` (a session's
 * connect_url: Vessel's /cdp proxy), and notes which methods the client sent and which of them
 * were answered with an error. The client sees Vessel's answers unchanged.
 */

export interface RecordedCall {
  id: number;
  method: string;
  sessionId?: string;
}

export interface RecordedError {
  method: string;
  message: string;
  code?: number;
}

export interface Recording {
  /** Every command the client sent, in order. */
  calls: RecordedCall[];
  /** Every command answered with an error. */
  errors: RecordedError[];
  /** The distinct methods the client sent, sorted. */
  methods(): string[];
}

export interface RecordingRelay {
  /** `connectUrl` with the relay in Vessel's place. */
  url: string;
  recording: Recording;
  close(): Promise<void>;
}

export async function startRecordingRelay(connectUrl: string): Promise<RecordingRelay> {
  const upstreamBase = new URL(connectUrl);
  const calls: RecordedCall[] = [];
  const errors: RecordedError[] = [];
  const sockets = new Set<WebSocket>();
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  server.on("connection", (client, req) => {
    const upstream = new WebSocket(new URL(req.url ?? "/", upstreamBase).toString(), { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    sockets.add(client);
    sockets.add(upstream);
    /** Method of each command waiting for its answer, by connection-wide id. */
    const waiting = new Map<number, string>();
    const early: string[] = [];
    client.on("message", (data) => {
      const text = data.toString();
      try {
        const message = JSON.parse(text) as { id?: unknown; method?: unknown; sessionId?: unknown };
        if (typeof message.id === "number" && typeof message.method === "string") {
          calls.push({ id: message.id, method: message.method, ...(typeof message.sessionId === "string" ? { sessionId: message.sessionId } : {}) });
          waiting.set(message.id, message.method);
        }
      } catch {
        // not JSON: forwarded as it is
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else early.push(text);
    });
    upstream.on("open", () => {
      for (const text of early.splice(0)) upstream.send(text);
    });
    upstream.on("message", (data) => {
      const text = data.toString();
      try {
        const message = JSON.parse(text) as { id?: unknown; error?: { message?: string; code?: number } };
        if (typeof message.id === "number" && waiting.has(message.id)) {
          const method = waiting.get(message.id)!;
          waiting.delete(message.id);
          if (message.error)
            errors.push({ method, message: String(message.error.message), ...(message.error.code !== undefined ? { code: message.error.code } : {}) });
        }
      } catch {
        // not JSON
      }
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    const closeBoth = () => {
      client.close();
      upstream.close();
    };
    client.on("close", closeBoth);
    upstream.on("close", closeBoth);
    client.on("error", closeBoth);
    upstream.on("error", closeBoth);
    upstream.on("unexpected-response", (_req, res) => {
      client.close(1011, `upstream refused the handshake: ${res.statusCode}`);
    });
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const url = new URL(connectUrl);
  url.host = `127.0.0.1:${port}`;
  url.protocol = "ws:";
  return {
    url: url.toString(),
    recording: { calls, errors, methods: () => [...new Set(calls.map((c) => c.method))].sort() },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.terminate();
        server.close(() => resolve());
      }),
  };
}
