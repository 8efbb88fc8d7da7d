// A bare TCP relay to 127.0.0.1:<port> in a process of its own, for bench/sessions (b): it sends
// its listening port to the parent and relays until killed.
import net from "node:net";

const port = Number(process.argv[2]);
const server = net.createServer((client) => {
  const upstream = net.connect({ host: "127.0.0.1", port, noDelay: true });
  client.setNoDelay(true);
  client.pipe(upstream).pipe(client);
  const end = () => (client.destroy(), upstream.destroy());
  client.once("error", end).once("close", end);
  upstream.once("error", end).once("close", end);
});
server.listen(0, "127.0.0.1", () => process.send?.((server.address() as net.AddressInfo).port));
process.on("disconnect", () => process.exit(0));
