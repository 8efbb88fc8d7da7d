// The candidate design of bench/relay.ts, measured before choosing it: Vessel's own relay
// (src/browser/cdp-relay.ts, policy on) in a process of its own that also owns the browser's pipe,
// so that nothing of the node's main event loop (REST, GraphQL, the embedded database) is on a CDP
// message's path. Here that process launches its Chromium itself (bench/reference-chromium.ts: the
// pool's flags; unjailed); a client's WebSocket gets a channel on its pipe, as with /cdp. It sends
// its listening port to the parent and serves until the parent goes away.
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { WebSocketServer } from "ws";
import { relayClient } from "../src/browser/cdp-relay.ts";
import { launchReference } from "./reference-chromium.ts";

const executablePath = process.argv[2]!;
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-candidate-"));
const downloads = path.join(dataRoot, "downloads");
fs.mkdirSync(downloads);
const browser = await launchReference({ executablePath, dataRoot, id: "candidate" });
const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false, clientTracking: false, maxPayload: 64 * 1024 * 1024 });
server.on("connection", (client) => {
  client.pause();
  browser.cdp.open().then((channel) => {
    relayClient(client, channel, { policy: true, downloads, onRefused: () => {}, browserAlive: () => browser.cdp.isOpen });
    client.resume();
  }, () => client.terminate());
});
server.once("listening", () => process.send?.((server.address() as AddressInfo).port));
const stop = async () => {
  server.close();
  await browser.close();
  fs.rmSync(dataRoot, { recursive: true, force: true });
  process.exit(0);
};
process.on("disconnect", () => void stop());
process.on("SIGTERM", () => void stop());
