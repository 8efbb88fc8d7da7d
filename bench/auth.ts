// Throughput of an authenticated GET /v1/health against the same work with authentication, rate
// limiting and audit switched off, measured side by side in one process: alternating rounds, medians,
// and the ratio. Loopback only, bounded in time. Goal (issue 3): the warm-key overhead is under 20%.
//
//   npm run bench:auth                      embedded default (PGlite, in-memory limits)
//   DATABASE_URL=… REDIS_URL=… VESSEL_MASTER_KEY=… npm run bench:auth    PostgreSQL + Redis (a migrated database)
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { internalContext } from "../src/deps.ts";
import { defineRoute } from "../src/rest/define-route.ts";
import { HealthDto, toHealthDto } from "../src/rest/routes/health.ts";
import { createApiKey } from "../src/services/api-keys/api-keys.ts";
import { operations } from "../src/services/operations.ts";
import { createWorkspace } from "../src/services/workspaces/workspaces.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

// The same handler as /v1/health, reached without authentication: the service still needs a caller,
// so it is handed a fixed one, which is exactly the work authentication would have done.
const unauthenticated = defineRoute({
  method: "get",
  path: "/v1/health-unauthenticated",
  operation: operations.health,
  summary: "benchmark baseline",
  tags: ["Bench"],
  auth: "none",
  input: {},
  status: 200,
  response: HealthDto,
  handler: async (ctx, _input, _http, run) =>
    toHealthDto(
      await run({
        ...ctx,
        principal: { kind: "apiKey", keyId: "bench", keyPrefix: "vs_bench", workspaceId: "bench", rateLimitPerMinute: 1e9, maxSessions: null },
      }),
    ),
});

const config = loadConfig({ ...process.env, PORT: "0", VESSEL_HOST: "127.0.0.1", LOG_LEVEL: "silent" }, "/nonexistent");
const db = await openDatabase({ url: config.database.url, dataDir: "memory://", migrate: "apply" });
const app = await createApp(config, { db, extraRoutes: [unauthenticated], redisPrefix: `vessel-bench-${Date.now()}:` });
await app.start();
const ctx = internalContext(app.deps, "bench");
const ws = await createWorkspace(ctx, { slug: `bench-${Date.now().toString(36)}`, name: "Bench" });
// A budget no benchmark reaches, so the limiter is measured, not triggered.
await db.prisma.workspace.update({ where: { id: ws.id }, data: { rateLimitPerMinute: 100_000_000 } });
const { secret } = await createApiKey(ctx, { workspaceId: ws.id, label: "bench" });

/** The load comes from another process, so it does not steal the server's event loop. */
async function run(path: string, headers: Record<string, string>): Promise<number> {
  const args = [
    "--json",
    "-c",
    String(connections),
    "-d",
    String(seconds),
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]),
    `${app.url}${path}`,
  ];
  const { stdout } = await promisify(execFile)("node_modules/.bin/autocannon", args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { non2xx: number; errors: number; requests: { average: number } };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const authed: number[] = [];
const baseline: number[] = [];
const withKey = { authorization: `Bearer ${secret}` };
// BENCH_ONLY=auth|baseline runs one side alone, for profiling with --cpu-prof.
if (process.env.BENCH_ONLY) {
  const only = process.env.BENCH_ONLY === "auth";
  console.log(`${process.env.BENCH_ONLY}: ${Math.round(await run(only ? "/v1/health" : "/v1/health-unauthenticated", only ? withKey : {}))} req/s`);
  await app.stop();
  await db.close();
  process.exit(0);
}
// Warm both paths alike (JIT, connection pools, the one argon2 verification), then alternate which
// goes first so drift in the machine's load does not favour either.
await run("/v1/health-unauthenticated", {});
await run("/v1/health", withKey);
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    baseline.push(await run("/v1/health-unauthenticated", {}));
    authed.push(await run("/v1/health", withKey));
  } else {
    authed.push(await run("/v1/health", withKey));
    baseline.push(await run("/v1/health-unauthenticated", {}));
  }
}
await app.stop();
await db.close();

const ratio = median(authed) / median(baseline);
console.log(`database: ${db.kind}${config.redis.url ? " + Redis" : ""}; ${rounds} rounds of ${seconds} s, ${connections} connections`);
console.log(`baseline (no auth):  ${baseline.map(Math.round).join(", ")} req/s, median ${Math.round(median(baseline))}`);
console.log(`authenticated:       ${authed.map(Math.round).join(", ")} req/s, median ${Math.round(median(authed))}`);
console.log(`ratio authenticated/baseline: ${ratio.toFixed(3)} (cost ${((1 - ratio) * 100).toFixed(1)}%; goal < 20%)`);
process.exit(0);
