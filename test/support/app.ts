import fs from "node:fs";
import type { IncomingMessage } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ulid } from "ulid";
import { createApp, type App, type AppOptions } from "../../src/app.ts";
import type { UserPrincipal } from "../../src/auth/request-auth.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import type { Database } from "../../src/db/client.ts";
import { internalContext } from "../../src/deps.ts";
import { browserDataRoot } from "../../src/deps-browsers.ts";
import type { Role } from "../../src/generated/prisma/client.ts";
import { createApiKey } from "../../src/services/api-keys/api-keys.ts";
import { createWorkspace } from "../../src/services/workspaces/workspaces.ts";
import { openMigratedPglite } from "./db.ts";

export interface TestApp {
  app: App;
  config: Config;
  url: string;
  stop(): Promise<void>;
}

/** A real server on a free loopback port. Without `db`, an in-memory PGlite that dies with the app. */
export async function startTestApp(options: AppOptions & { env?: Record<string, string> } = {}): Promise<TestApp> {
  // Each app gets its own data folder (master key, browser folders) and no warm browser unless asked.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-app-"));
  // A known port, so the public base URL (in connect_url and live_view_url) is the real address.
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      VESSEL_HOST: "127.0.0.1",
      VESSEL_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      VESSEL_INTERNAL_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "silent",
      VESSEL_DATA_DIR: dataDir,
      VESSEL_BROWSER_WARM: "0",
      // A fixed number of spares (VESSEL_BROWSER_WARM): tests count spares and launches; the adaptive
      // pool has tests of its own (unit/pool-demand, integration/browser-pool).
      VESSEL_WARM_POOL_MAX: "0",
      // The fixture sites of the tests live on loopback, which the egress policy refuses by default;
      // the policy's own tests set this to what they need.
      VESSEL_EGRESS_ALLOW: "127.0.0.1/32,::1/128,localhost",
      // The tests' webhook receivers are on loopback too (a list of its own: docs/webhooks.md).
      VESSEL_WEBHOOK_ALLOW: "127.0.0.1/32,::1/128,localhost",
      // The browser watchdog holds a CDP connection of its own to every browser, which would blur
      // tests that count connections; its own tests (e2e/faults) switch it on.
      VESSEL_BROWSER_PING_SECONDS: "0",
      ...options.env,
    },
    "/nonexistent",
  );
  const ownDb: Database | undefined = options.db ? undefined : await openMigratedPglite();
  const db = options.db ?? ownDb!;
  const app = await createApp(config, { checkResponses: true, users: fixtureUsers(db), nodeId: `test-${ulid()}`, ...options, db });
  await app.start();
  return {
    app,
    config,
    url: app.url,
    async stop() {
      await app.stop();
      await ownDb?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(browserDataRoot(config), { recursive: true, force: true });
      fs.rmSync(`${browserDataRoot(config)}-ext`, { recursive: true, force: true });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Stands in for the dashboard sign-in until it exists: `Authorization: Bearer test-user:<id>` is that
 * user, if the user exists. It only ever runs in tests; the services still decide what the user may do.
 */
export function fixtureUsers(db: Database) {
  return async (req: IncomingMessage): Promise<UserPrincipal | null> => {
    const id = /^Bearer test-user:(\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!id) return null;
    const user = await db.prisma.user.findUnique({ where: { id } });
    return user ? { kind: "user", userId: user.id, email: user.email } : null;
  };
}

export interface Seeded {
  workspace: { id: string; slug: string };
  key: string;
  prefix: string;
  keyId: string;
}

let counter = 0;
export function uniqueSlug(base = "ws"): string {
  return `${base}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
}

/** A workspace with one API key, made through the real services. */
export async function seedWorkspace(t: TestApp, opts: { slug?: string; rateLimitPerMinute?: number; scopes?: string[] } = {}): Promise<Seeded> {
  const ctx = internalContext(t.app.deps, "seed");
  const workspace = await createWorkspace(ctx, { slug: opts.slug ?? uniqueSlug(), name: "Test" });
  if (opts.rateLimitPerMinute !== undefined) {
    await t.app.deps.db.prisma.workspace.update({ where: { id: workspace.id }, data: { rateLimitPerMinute: opts.rateLimitPerMinute } });
  }
  const { apiKey, secret } = await createApiKey(ctx, { workspaceId: workspace.id, label: "test", ...(opts.scopes ? { scopes: opts.scopes } : {}) });
  return { workspace, key: secret, prefix: apiKey.prefix, keyId: apiKey.id };
}

/** Another key in an existing workspace. */
export async function addKey(t: TestApp, workspaceId: string, scopes?: string[]): Promise<{ key: string; prefix: string; keyId: string }> {
  const { apiKey, secret } = await createApiKey(internalContext(t.app.deps, "seed"), { workspaceId, label: "extra", ...(scopes ? { scopes } : {}) });
  return { key: secret, prefix: apiKey.prefix, keyId: apiKey.id };
}

/** A dashboard user with a role in a workspace; sign in as them with `userAuth(id)`. */
export async function seedUser(t: TestApp, workspaceId: string, role: Role): Promise<string> {
  const id = ulid();
  await t.app.deps.db.prisma.user.create({ data: { id, email: `${id.toLowerCase()}@example.test` } });
  await t.app.deps.db.prisma.membership.create({ data: { workspaceId, userId: id, role } });
  return id;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const userAuth = (userId: string) => ({ authorization: `Bearer test-user:${userId}` });
