// TEMPORARY (perf investigation): times POST/PATCH in-process with per-SQL timings.
import { randomUUID } from "node:crypto";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { findChromium } from "../src/browser/chromium.ts";
import { seedWorkspace, startTestApp } from "../test/support/app.ts";

const sqlLog: Array<[string, number]> = [];
const probe = await new PrismaPGlite({} as never).connect();
const queryable = Object.getPrototypeOf(Object.getPrototypeOf(probe));
const orig = queryable.performIO;
queryable.performIO = async function (this: unknown, q: { sql: string }) {
  const t = performance.now();
  try { return await orig.call(this, q); } finally { sqlLog.push([q.sql.replace(/\s+/g, " ").slice(0, 90), performance.now() - t]); }
};
const adapterProto = Object.getPrototypeOf(probe);
const origStart = adapterProto.startTransaction;
adapterProto.startTransaction = async function (this: unknown, ...a: unknown[]) {
  const t = performance.now();
  const tx = await origStart.apply(this, a);
  sqlLog.push(["BEGIN", performance.now() - t]);
  const c = tx.commit.bind(tx);
  tx.commit = async () => { const t2 = performance.now(); try { return await c(); } finally { sqlLog.push(["COMMIT", performance.now() - t2]); } };
  return tx;
};

let t0 = 0;
(globalThis as any).__mark = (label: string) => sqlLog.push([`-- mark ${label} @${(performance.now() - t0).toFixed(2)}`, 0]);
const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "2", VESSEL_BROWSER_CAPACITY: "8", VESSEL_CHROMIUM_PATH: findChromium()! }, checkResponses: false });
const deps = t.app.deps as any;
for (const [obj, name] of [[deps.tokens, "mint"], [deps.browsers, "acquire"], [deps.runtime, "add"], [deps.runtime, "teardown"], [deps.tokens, "verify"]] as const) {
  const f = obj[name].bind(obj);
  obj[name] = (...a: unknown[]) => { (globalThis as any).__mark(`${name} start`); const r = f(...a); if (r && typeof r.then === "function") r.then(() => (globalThis as any).__mark(`${name} end`)); else (globalThis as any).__mark(`${name} end`); return r; };
}
const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
const h = { authorization: `Bearer ${seeded.key}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post: number[] = [], patch: number[] = [];
const verbose = process.env.V === "1";
for (let i = 0; i < Number(process.env.N ?? 15); i++) {
  while (t.app.deps.browsers.report().warm < 2) await sleep(10);
  await sleep(300);
  sqlLog.length = 0;
  let m = performance.now(); t0 = m;
  const res = await fetch(`${t.url}/v1/sessions`, { method: "POST", headers: { ...h, "idempotency-key": randomUUID() }, body: JSON.stringify({ region: "us-east1" }) });
  const s = (await res.json()) as { id: string };
  post.push(performance.now() - m);
  if (verbose && i >= 2) { console.log(`POST ${post.at(-1)!.toFixed(1)}`); for (const [q, d] of sqlLog) if (!q.startsWith("-- mark") || true) console.log(`   ${d.toFixed(2)}  ${q}`); }
  sqlLog.length = 0;
  m = performance.now(); t0 = m;
  await fetch(`${t.url}/v1/sessions/${s.id}`, { method: "PATCH", headers: h, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
  patch.push(performance.now() - m);
  if (verbose && i >= 2) { console.log(`PATCH ${patch.at(-1)!.toFixed(1)}`); for (const [q, d] of sqlLog) if (!q.startsWith("-- mark") || true) console.log(`   ${d.toFixed(2)}  ${q}`); }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`POST p50 ${med(post.slice(2)).toFixed(1)}  PATCH p50 ${med(patch.slice(2)).toFixed(1)}`);
await t.stop();
process.exit(0);
