// A bare TCP relay to 127.0.0.1:<port> in a process of its own, for bench/sessions (b): it sends
// its listening port to the parent and relays until the parent goes away.
import type { AddressInfo } from "node:net";
import { bareRelay } from "./support.ts";

const server = bareRelay(Number(process.argv[2]));
server.listen(0, "127.0.0.1", () => process.send?.((server.address() as AddressInfo).port));
process.on("disconnect", () => process.exit(0));
