import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testDatabaseUrl, testRedisUrl } from "./services.ts";

// Runs once before the suite. With VESSEL_REQUIRE_SERVICES=1 (CI) a missing PostgreSQL, Redis or
// Chromium stops the run here with one clear message, instead of tests skipping quietly.
export default async function setup(): Promise<void> {
  if (!servicesRequired) return;
  const missing: string[] = [];
  if (!(await postgresReachable())) missing.push(`PostgreSQL at ${testDatabaseUrl}`);
  if (!(await redisReachable())) missing.push(`Redis at ${testRedisUrl}`);
  if (!chromiumPath()) missing.push("Chromium (apt-get install chromium)");
  if (missing.length > 0) throw new Error(`VESSEL_REQUIRE_SERVICES=1 but these are missing: ${missing.join("; ")}`);
}
