// A CDP client as a process of its own, for multi-host tests (support/netns.ts): run it inside a
// host's namespace with `ip netns exec`. It opens a tab, then sends `Runtime.evaluate("Date.now()")`
// every `intervalMs` whether or not the previous one was answered (so commands queue up when the
// network does not deliver), and prints one JSON line per event on stdout:
//   {"ready":true}  {"ran":<the browser's Date.now() when the command ran>}  {"closed":<code>}  {"error":"…"}
//   node --import tsx test/support/cdp-pinger.ts <connect_url> [intervalMs]
import WebSocket from "ws";

const [url, interval] = process.argv.slice(2);
if (!url) {
  process.stderr.write("usage: cdp-pinger <connect_url> [intervalMs]\n");
  process.exit(2);
}
const intervalMs = Number(interval ?? 50);
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
let next = 1;
const waiting = new Map<number, (result: Record<string, unknown>) => void>();
const send = (method: string, params: Record<string, unknown>, sessionId?: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });

socket.on("message", (data) => {
  const message = JSON.parse(data.toString()) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
  if (message.id === undefined) return;
  const resolve = waiting.get(message.id);
  waiting.delete(message.id);
  if (message.error) say({ error: message.error.message });
  else resolve?.(message.result ?? {});
});
socket.on("close", (code) => {
  say({ closed: code });
  process.exit(0);
});
socket.on("error", (err) => say({ error: err.message }));
socket.on("open", async () => {
  const { targetId } = (await send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
  const { sessionId } = (await send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
  say({ ready: true });
  setInterval(() => {
    if (socket.readyState !== WebSocket.OPEN) return;
    void send("Runtime.evaluate", { expression: "Date.now()", returnByValue: true }, sessionId).then((r) => {
      say({ ran: (r.result as { value: number }).value });
    });
  }, intervalMs);
});
