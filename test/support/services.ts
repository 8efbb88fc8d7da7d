import fs from "node:fs";
import net from "node:net";
import pg from "pg";

/** In CI a missing service fails the run; on a developer's machine, tests that need it are skipped. */
export const servicesRequired = process.env.VESSEL_REQUIRE_SERVICES === "1";

export const testDatabaseUrl = process.env.VESSEL_TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const testRedisUrl = process.env.VESSEL_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const chromiumCandidates = ["/usr/bin/chromium", "/usr/lib/chromium/chromium"];

/** Full Chromium (not the headless shell): the e2e tests render real pages such as GraphiQL. */
export function chromiumPath(): string | undefined {
  return chromiumCandidates.find((p) => fs.existsSync(p));
}

export async function postgresReachable(url = testDatabaseUrl): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function redisReachable(url = testRedisUrl): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 3000 });
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => {
      resolve(d.toString().startsWith("+PONG"));
      socket.destroy();
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      resolve(false);
      socket.destroy();
    });
  });
}
