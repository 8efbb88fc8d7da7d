// What webhooks add to a session's start and end (issue 22): the look-up that queues a session
// event's deliveries, per `session.running`, on the embedded database, three ways:
//  (a) no endpoint anywhere, without the presence gate (the look-up runs: one statement);
//  (b) no endpoint anywhere, with the gate (what the server does: no statement for 10 s at a time);
//  (c) an enabled endpoint in another workspace (the gate is open; the look-up finds nothing for this session).
// Wall time and this process's CPU per event. Never part of the tests.
//
//   npx tsx bench/webhook-enqueue.ts
//   BENCH_N=5000
import { randomBytes } from "node:crypto";
import { openDatabase } from "../src/db/client.ts";
import { createLogger } from "../src/logger.ts";
import { memoryPubSub } from "../src/pubsub.ts";
import { EndpointPresence } from "../src/services/webhooks/endpoint-presence.ts";
import { enqueueForEvents } from "../src/services/webhooks/webhook-enqueue.ts";

const N = Number(process.env.BENCH_N ?? 2000);
const db = await openDatabase({ dataDir: "memory://" });
const log = createLogger("silent");
const presence = new EndpointPresence({ db, log, pubsub: memoryPubSub() });
const sessionId = "ses_01J0000000000000000000000";
const event = (i: number) => ({ id: `evt_${i}`, sessionId, type: "session.running", createdAt: new Date(), data: {} });

async function measure(name: string, gate?: EndpointPresence): Promise<void> {
  for (let i = 0; i < 200; i++) await enqueueForEvents({ db, log }, [event(i)], gate);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await enqueueForEvents({ db, log }, [event(i)], gate);
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  console.log(`${name.padEnd(44)} ${(wall / N).toFixed(4)} ms wall, ${((cpu.user + cpu.system) / 1000 / N).toFixed(4)} ms CPU per event (${N} events)`);
}

await measure("(a) no endpoint, no gate");
await measure("(b) no endpoint, gate", presence);
await db.prisma.workspace.create({ data: { id: "ws_other", slug: "other", name: "Other" } });
await db.prisma.webhookEndpoint.create({
  data: {
    id: "whk_01J0000000000000000000000",
    workspaceId: "ws_other",
    url: "https://example.com/",
    events: ["session.running"],
    secret: randomBytes(40),
    masterKeyId: "x",
  },
});
presence.changed();
await measure("(c) another workspace's endpoint, gate open", presence);
presence.close();
await db.close();
