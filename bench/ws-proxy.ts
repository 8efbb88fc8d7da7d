// The peer reference of bench/relay.ts: a plain Node.js WebSocket proxy, in a process of its own,
// as a CDP proxy product without Vessel's design would be. Each client's WebSocket is accepted
// (`ws`), a WebSocket to the target (the reference Chromium's DevTools port, same path) is opened,
// and messages are passed both ways as they came: no parsing, no policy, no pipe. It sends its
// listening port to the parent and serves until the parent goes away.
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";

const targetPort = Number(process.argv[2]);
const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false, clientTracking: false, maxPayload: 256 * 1024 * 1024 });
server.on("connection", (client, req) => {
  const upstream = new WebSocket(`ws://127.0.0.1:${targetPort}${req.url ?? "/"}`, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  const early: { data: WebSocket.RawData; binary: boolean }[] = [];
  client.on("message", (data, binary) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
    else early.push({ data, binary });
  });
  upstream.once("open", () => {
    for (const m of early.splice(0)) upstream.send(m.data, { binary: m.binary });
  });
  upstream.on("message", (data, binary) => client.send(data, { binary }));
  const end = () => (client.terminate(), upstream.terminate());
  client.once("close", end).once("error", end);
  upstream.once("close", end).once("error", end);
});
// ws sets TCP_NODELAY on both sockets itself.
server.once("listening", () => process.send?.((server.address() as AddressInfo).port));
process.on("disconnect", () => process.exit(0));
