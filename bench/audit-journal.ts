// What the audit journal costs one call: the CPU time (user + system, this process only, so other
// load on the machine does not count) of AuditWriter.enqueue() with and without the journal's
// synchronous append, in alternating rounds, medians. No flush runs during a round (the interval is
// long and the batch size large), so only what a request pays is measured; flushes happen between
// rounds. Compare with the CPU time of a whole authenticated read (bench/auth: ~1 ms on PGlite).
//
//   npx tsx bench/audit-journal.ts          BENCH_ENTRIES (default 20 000) per round, BENCH_ROUNDS (default 7)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../src/db/client.ts";
import { createLogger } from "../src/logger.ts";
import { AuditJournal } from "../src/services/audit/audit-journal.ts";
import { AuditWriter } from "../src/services/audit/audit-writer.ts";
import { createWorkspace } from "../src/services/workspaces/workspaces.ts";
import { f, median, num } from "./support.ts";

const entries = num("BENCH_ENTRIES", 20_000);
const rounds = num("BENCH_ROUNDS", 7);
const log = createLogger("silent");
const db = await openDatabase({ dataDir: "memory://", migrate: "apply" });
const ws = await createWorkspace(db, { slug: `bench-${Date.now().toString(36)}`, name: "Bench" });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-journal-"));

/** CPU microseconds per enqueue() over one round. */
async function round(withJournal: boolean): Promise<number> {
  const journal = withJournal ? await AuditJournal.open(dir, log) : undefined;
  const writer = new AuditWriter(db.prisma, { log, journal, flushIntervalMs: 3_600_000, maxBatch: entries + 1, maxQueued: entries + 1 });
  const record = {
    workspaceId: ws.id,
    keyPrefix: "vs_01KAXQ3Z9Q6H5V2N8R4T7W1Y0B",
    actorUserId: null,
    action: "health.get",
    target: null,
    httpStatus: 200,
    requestId: "01KAXQ3Z9Q6H5V2N8R4T7W1Y0C",
    clientRequestId: "3f2a9c1e-8d4b-4e6f-9a7c-2b1d0e5f4a3c",
    ip: "203.0.113.7",
  };
  const before = process.cpuUsage();
  for (let i = 0; i < entries; i++) writer.enqueue(record);
  const used = process.cpuUsage(before);
  await writer.close();
  return (used.user + used.system) / entries;
}

const on: number[] = [];
const off: number[] = [];
await round(true); // warm-up (JIT, the file system's caches)
await round(false);
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    on.push(await round(true));
    off.push(await round(false));
  } else {
    off.push(await round(false));
    on.push(await round(true));
  }
}
await db.close();
fs.rmSync(dir, { recursive: true, force: true });
console.log(`${rounds} rounds of ${entries} entries, CPU µs per enqueue (user + system)`);
console.log(`without journal: ${off.map((x) => f(x, 2)).join(", ")}; median ${f(median(off), 2)}`);
console.log(`with journal:    ${on.map((x) => f(x, 2)).join(", ")}; median ${f(median(on), 2)}`);
console.log(`the journal adds ${f(median(on) - median(off), 2)} µs of CPU per audited call`);
process.exit(0);
