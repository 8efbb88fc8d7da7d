// The background load of bench/relay.ts, forked by it: a steady REST/GraphQL load on the node
// (session lists and session events, over both surfaces, open loop at a fixed rate) and three
// other sessions kept busy by CDP clients of their own. It runs until the parent asks it to stop,
// then reports what it did (requests answered and failed, their p50/p99, commands sent).
import { BenchCdp, median, pct } from "./support.ts";

export interface LoadArgs {
  baseUrl: string;
  key: string;
  /** REST + GraphQL requests per second, spread evenly (open loop: never waits for answers). */
  rate: number;
  /** The busy sessions: CDP clients on their /cdp, each sending `commandsPerSecond`. */
  busy: { id: string; connectUrl: string }[];
  commandsPerSecond: number;
}
export interface LoadReport {
  requests: number;
  failed: number;
  seconds: number;
  p50: number;
  p99: number;
  commands: number;
  /** Requests not sent because MAX_IN_FLIGHT were waiting already (the node could not keep up). */
  skipped: number;
  failures: string[];
}

const args = JSON.parse(process.argv[2] ?? "{}") as LoadArgs;
const headers = { authorization: `Bearer ${args.key}`, "content-type": "application/json" };
const latencies: number[] = [];
let failed = 0;
const failures = new Map<string, number>();
/** Requests in flight at most: past it the node is saturated, and a tick sends nothing more (counted). */
const MAX_IN_FLIGHT = 24;
let inFlight = 0;
let skipped = 0;
let commands = 0;
let stopping = false;
const ids = args.busy.map((s) => s.id);
const gql = (query: string, variables: object) => ({ method: "POST", headers, body: JSON.stringify({ query, variables }) });
/** The four kinds of request, in turn: list and events, REST and GraphQL. */
const kinds: ((i: number) => [string, RequestInit])[] = [
  () => [`${args.baseUrl}/v1/sessions?limit=20`, { headers }],
  (i) => [`${args.baseUrl}/v1/sessions/${ids[i % ids.length]}/events?limit=50`, { headers }],
  () => [`${args.baseUrl}/graphql`, gql("query($l:Int){sessions(limit:$l){items{id status createdAt}hasMore}}", { l: 20 })],
  (i) => [`${args.baseUrl}/graphql`, gql("query($s:String!){sessionEvents(sessionId:$s,limit:50){items{type}hasMore}}", { s: ids[i % ids.length] })],
];

async function one(i: number): Promise<void> {
  const [url, init] = kinds[i % kinds.length]!(i);
  const t = performance.now();
  const fail = (why: string) => (failed++, failures.set(why, (failures.get(why) ?? 0) + 1));
  inFlight++;
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"')) fail(`${res.status} ${text.slice(0, 80)}`);
    else latencies.push(performance.now() - t);
  } catch (err) {
    fail(String((err as Error).cause ?? err).slice(0, 80));
  } finally {
    inFlight--;
  }
}

/** Opens a client on a busy session's /cdp, attached (flat) to its page. */
async function busyClient(url: string): Promise<BenchCdp> {
  const cdp = await BenchCdp.open(url);
  const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
  let targetId = targetInfos.find((t) => t.type === "page")?.targetId;
  targetId ??= (await cdp.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" })).targetId;
  cdp.sessionId = (await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true })).sessionId;
  await cdp.send("Runtime.enable", {}, cdp.sessionId);
  return cdp;
}

const clients = await Promise.all(args.busy.map((s) => busyClient(s.connectUrl)));
const started = performance.now();
let sent = 0;
// Open loop: each tick sends what the clock says is due, so a slow answer never lowers the rate.
const tick = setInterval(() => {
  const due = Math.floor(((performance.now() - started) / 1000) * args.rate);
  for (; sent < due; sent++) {
    if (inFlight < MAX_IN_FLIGHT) void one(sent);
    else skipped++;
  }
}, 5);
// Each busy session: a page script step (a DOM write and read) every 1000/commandsPerSecond ms.
const busyTimers = clients.map((cdp, n) =>
  setInterval(() => {
    if (stopping) return;
    commands++;
    cdp
      .send(
        "Runtime.evaluate",
        { expression: `document.title = "busy ${n} " + Date.now(); document.body ? document.body.childElementCount : 0` },
        cdp.sessionId,
      )
      .catch(() => {});
  }, 1000 / args.commandsPerSecond),
);
process.send!("ready");

process.on("message", async (msg) => {
  if (msg !== "stop") return;
  stopping = true;
  clearInterval(tick);
  for (const timer of busyTimers) clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 200));
  await Promise.allSettled(clients.map((c) => c.close()));
  const report: LoadReport = {
    requests: latencies.length,
    failed,
    seconds,
    p50: median(latencies),
    p99: pct(latencies, 99),
    commands,
    skipped,
    failures: [...failures].slice(0, 5).map(([why, n]) => `${n}× ${why}`),
  };
  process.send!(report, () => process.exit(0));
});
process.once("disconnect", () => process.exit(0));
