// The floor of bench/relay.ts: the reference Chromium (bench/reference-chromium.ts: the pool's
// flags, a DevTools port and its pipe), launched by this process, which also serves a bare
// WebSocket→pipe relay to it (bench/support.ts pipeRelay: each client message parsed and written
// again onto its channel, as a pipe's routing needs; no token, no policy, no shape checks). One hop
// to a browser without a port, in a process of its own with nothing else on its event loop: what
// any relay like Vessel's costs at the least. Sends { wsEndpoint, port, floorUrl } to the parent
// when ready; closes the browser when the parent goes (or sends SIGTERM).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findChromium } from "../src/browser/launch/command.ts";
import { launchReference } from "./reference-chromium.ts";
import { pipeRelay } from "./support.ts";

const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-floor-"));
const reference = await launchReference({ executablePath, dataRoot, id: "reference" });
const relay = await pipeRelay(reference.cdp);
let ending = false;
const end = async () => {
  if (ending) return;
  ending = true;
  await relay.close();
  await reference.close();
  fs.rmSync(dataRoot, { recursive: true, force: true });
  process.exit(0);
};
process.on("disconnect", () => void end());
process.on("SIGTERM", () => void end());
process.send!({ wsEndpoint: reference.wsEndpoint, port: reference.port, floorUrl: relay.url });
