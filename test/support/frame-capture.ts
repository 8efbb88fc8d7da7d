import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";

export interface FrameCapture {
  /** `connectUrl` with the relay in Vessel's place. */
  url: string;
  /** Every frame the client sent and received, as text, in order. */
  frames: string[];
  close(): Promise<void>;
}

/** Relays one CDP client's WebSocket to `connectUrl`, keeping every frame in both directions. */
export async function startFrameCapture(connectUrl: string): Promise<FrameCapture> {
  const upstream = new URL(connectUrl);
  const frames: string[] = [];
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (client, req) => {
    const target = new URL(req.url ?? "/", upstream);
    const remote = new WebSocket(target, { maxPayload: 256 * 1024 * 1024 });
    const pending: string[] = [];
    remote.on("open", () => {
      for (const m of pending.splice(0)) remote.send(m);
    });
    client.on("message", (data) => {
      const text = String(data);
      frames.push(text);
      if (remote.readyState === WebSocket.OPEN) remote.send(text);
      else pending.push(text);
    });
    remote.on("message", (data) => {
      const text = String(data);
      frames.push(text);
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    client.on("close", () => remote.close());
    remote.on("close", () => client.close());
    remote.on("error", () => client.terminate());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}${upstream.pathname}${upstream.search}`,
    frames,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of server.clients) c.terminate();
        server.close(() => resolve());
      }),
  };
}
