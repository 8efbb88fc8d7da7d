// Where a process's CPU goes, for the benches that report it (bench/relay.ts): V8's sampling
// profiler over the inspector protocol of this very process (what `node --cpu-prof` records), its
// self time summed by where the code lives, so that a run says "the relay", "ws", "the embedded
// database", … without opening a .cpuprofile. BENCH_CPU_PROFILE_DIR keeps the raw profiles too.
// The sampler is not free: at one sample per 200 µs it took more CPU than a session's whole
// lifecycle (a thread of its own, and each sample interrupts the main thread), so nothing should
// be timed or its CPU counted while a profile runs; profile a separate stretch for the shares.
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Where code lives, first match wins: the buckets of the summary. */
const places: [string, RegExp][] = [
  ["relay (cdp-relay, cdp-pipe, cdp-proxy, cdp-wire, command log)", /src\/browser\/cdp-(relay|pipe|proxy|wire|command-log)\.ts/],
  ["CDP policy (cdp-policy, allow-list, url scan)", /src\/browser\/cdp-(policy|allowlist|url-scan)\.ts/],
  ["other browser code (pool, live view, logs capture…)", /src\/(browser|live-view)\//],
  ["ws (WebSocket framing)", /node_modules\/ws\//],
  ["embedded database (PGlite)", /@electric-sql\/pglite/],
  ["Prisma", /@prisma|prisma/],
  ["logging, validation, rate limits (pino, zod, rate-limiter, jose)", /pino|zod|rate-limiter|jose|sonic-boom/],
  ["GraphQL (yoga, graphql-js, pothos)", /graphql|@pothos|@envelop|@whatwg-node/],
  ["Express and HTTP", /express|router|body-parser|finalhandler|send\/|node:_http|node:http/],
  ["Vessel services, REST, auth, kernel", /\/src\//],
  ["Node.js internals (streams, net, timers)", /^node:/],
  ["garbage collector", /^\(garbage collector\)$/],
  ["idle", /^\(idle\)$/],
  ["program (native, unattributed)", /^\(program\)$/],
];

function placeOf(node: ProfileNode): string {
  const key = node.callFrame.url || `(${node.callFrame.functionName.replace(/[()]/g, "")})`;
  for (const [name, pattern] of places) if (pattern.test(key)) return name;
  return node.callFrame.url ? "other libraries" : "program (native, unattributed)";
}

export interface CpuSummary {
  /** Milliseconds of self time per place, busiest first; idle excluded. */
  places: [string, number][];
  totalMs: number;
}

export async function startCpuProfile(): Promise<{ stop(label: string): Promise<CpuSummary> }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 1000 }); // µs, V8's default
  await session.post("Profiler.start");
  return {
    async stop(label) {
      const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
      session.disconnect();
      const dir = process.env.BENCH_CPU_PROFILE_DIR;
      if (dir) {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, `${label}.cpuprofile`), JSON.stringify(profile));
      }
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const totals = new Map<string, number>();
      const samples = profile.samples ?? [];
      const deltas = profile.timeDeltas ?? [];
      for (let i = 0; i < samples.length; i++) {
        const node = byId.get(samples[i]!);
        if (!node) continue;
        const place = placeOf(node);
        totals.set(place, (totals.get(place) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000);
      }
      totals.delete("idle");
      const sorted = [...totals.entries()].sort((a, b) => b[1] - a[1]);
      return { places: sorted, totalMs: sorted.reduce((s, [, ms]) => s + ms, 0) };
    },
  };
}
