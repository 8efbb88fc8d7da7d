import fs from "node:fs";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { parseApiKey } from "../../src/auth/api-key-format.ts";
import { secretTag, verifySecret } from "../../src/auth/api-key-hash.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/client.ts";
import type { Database } from "../../src/db/client.ts";
import { createLogger } from "../../src/logger.ts";
import { findKeyForVerification } from "../../src/auth/api-key-lookup.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../../src/services/api-keys/api-keys.ts";
import type { ServiceContext } from "../../src/kernel/context.ts";
import { createDeps, internalContext } from "../../src/deps.ts";
import { createWorkspace } from "../../src/services/workspaces/workspaces.ts";
import { pgliteDump } from "../../scripts/lib/pglite-dumps.ts";
import { createTestDatabase, describeEachBackend } from "../support/db.ts";
import type { TestDatabase } from "../support/db.ts";
import { appError } from "../support/errors.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const keyShape = /^vs_[0-9A-HJKMNP-TV-Z]{26}\.[0-9A-Za-z]{32}$/;

async function contextFor(db: Database): Promise<ServiceContext> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-keys-"));
  const { deps } = await createDeps(loadConfig({ VESSEL_DATA_DIR: dataDir }, "/nonexistent"), db, createLogger("silent"), { startBrowsers: false });
  return internalContext(deps, "test");
}

const run = promisify(execFile);

async function runSeed(env: Record<string, string>, args: string[] = []): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ["--import", "tsx", "scripts/seed.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: "", VESSEL_CONFIG: "", ...env },
    timeout: 90_000,
  });
}

let slugCounter = 0;
const uniqueSlug = (base: string) => `${base}-${process.pid}-${++slugCounter}`;

describeEachBackend("API keys", (backend) => {
  let t: TestDatabase;
  let ctx: ServiceContext;
  let w1: { id: string };
  let w2: { id: string };

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    ctx = await contextFor(t.db);
    w1 = await createWorkspace(ctx, { slug: uniqueSlug("one"), name: "One" });
    w2 = await createWorkspace(ctx, { slug: uniqueSlug("two"), name: "Two" });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  test("create returns the full key once, and a record without the hash", async () => {
    const { apiKey, secret } = await createApiKey(ctx, { workspaceId: w1.id, label: "  ci runner  " });
    expect(secret).toMatch(keyShape);
    const parsed = parseApiKey(secret)!;
    expect(apiKey).toMatchObject({ id: parsed.id, prefix: parsed.prefix, workspaceId: w1.id, label: "ci runner" });
    expect(apiKey.revokedAt).toBeNull();
    expect(apiKey.lastUsedAt).toBeNull();
    expect(apiKey.createdAt).toBeInstanceOf(Date);
    expect(Object.keys(apiKey)).not.toContain("secretHash");
    expect(JSON.stringify(apiKey)).not.toContain(parsed.secret);
    expect(JSON.stringify(apiKey)).not.toContain("argon2");
  });

  test("the row holds neither the secret nor the full key in any column, and its hash verifies", async () => {
    const { apiKey, secret } = await createApiKey(ctx, { workspaceId: w1.id, label: "scan me" });
    const { secret: secretPart } = parseApiKey(secret)!;
    const rows = await t.db.prisma.$queryRaw<Record<string, unknown>[]>`SELECT * FROM api_keys WHERE id = ${apiKey.id}`;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    // Every column of the table, so a column added later is scanned too.
    expect(Object.keys(row)).toEqual(expect.arrayContaining(["id", "workspace_id", "label", "secret_hash", "prefix"]));
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : String(value);
      expect(text, column).not.toContain(secretPart);
      expect(text, column).not.toContain(secretPart.slice(0, 16));
      expect(text, column).not.toContain(secretPart.slice(16));
      expect(text, column).not.toContain(secret);
    }
    expect(row.prefix).toBe(apiKey.prefix);
    expect(row.secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifySecret(row.secret_hash as string, secretPart)).toBe(true);
    expect(
      await verifySecret(
        row.secret_hash as string,
        secretPart.replace(/.$/, (c) => (c === "a" ? "b" : "a")),
      ),
    ).toBe(false);
  });

  test("findKeyForVerification returns the id, workspace, prefix, hash, tag, revokedAt and the workspace's limits; null for an unknown id", async () => {
    const { apiKey, secret } = await createApiKey(ctx, { workspaceId: w2.id, label: "lookup" });
    const found = await findKeyForVerification(t.db, apiKey.id);
    expect(found).not.toBeNull();
    expect(Object.keys(found!).sort()).toEqual([
      "id",
      "maxSessionSeconds",
      "maxSessions",
      "prefix",
      "rateLimitPerMinute",
      "revokedAt",
      "secretHash",
      "secretTag",
      "workspaceId",
    ]);
    expect(found).toMatchObject({ id: apiKey.id, workspaceId: w2.id, prefix: apiKey.prefix, revokedAt: null, rateLimitPerMinute: null, maxSessions: null });
    expect(found!.secretTag).toBe(secretTag(secret.split(".")[1]!));
    expect(apiKey).not.toHaveProperty("secretTag");
    await t.db.prisma.workspace.update({ where: { id: w2.id }, data: { rateLimitPerMinute: 42, maxSessions: 3 } });
    expect(await findKeyForVerification(t.db, apiKey.id)).toMatchObject({ rateLimitPerMinute: 42, maxSessions: 3 });
    await t.db.prisma.workspace.update({ where: { id: w2.id }, data: { rateLimitPerMinute: null, maxSessions: null } });
    expect(found!.secretHash).toMatch(/^\$argon2id\$/);
    expect(await findKeyForVerification(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV")).toBeNull();
  });

  test("list: the workspace's keys only, newest first, revoked included, never a hash", async () => {
    const w = await createWorkspace(ctx, { slug: uniqueSlug("list"), name: "List" });
    const first = await createApiKey(ctx, { workspaceId: w.id, label: "first" });
    const second = await createApiKey(ctx, { workspaceId: w.id, label: "second" });
    const third = await createApiKey(ctx, { workspaceId: w.id, label: "third" });
    await createApiKey(ctx, { workspaceId: w1.id, label: "elsewhere" });
    await revokeApiKey(ctx, { workspaceId: w.id, id: second.apiKey.id });

    const list = await listApiKeys(ctx, w.id);
    expect(list.map((k) => k.label)).toEqual(["third", "second", "first"]);
    expect(list[1]!.revokedAt).toBeInstanceOf(Date);
    const serialised = JSON.stringify(list);
    for (const k of list) expect(Object.keys(k)).not.toContain("secretHash");
    expect(serialised).not.toContain("argon2");
    for (const created of [first, second, third]) expect(serialised).not.toContain(parseApiKey(created.secret)!.secret);
    expect(await listApiKeys(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV")).toEqual([]);
  });

  test("revoke sets revokedAt and is idempotent; the first revocation's time and actor stay", async () => {
    const user = await t.db.prisma.user.create({ data: { id: "01ARZ3NDEKTSV4RRFFQ69G5FAW", email: `${uniqueSlug("u")}@example.com` } });
    const { apiKey } = await createApiKey(ctx, { workspaceId: w1.id, label: "to revoke", createdById: user.id });
    expect(apiKey.createdById).toBe(user.id);

    const before = Date.now();
    const revoked = await revokeApiKey(ctx, { workspaceId: w1.id, id: apiKey.id, revokedById: user.id });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(revoked.revokedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(revoked.revokedById).toBe(user.id);
    expect(Object.keys(revoked)).not.toContain("secretHash");

    const again = await revokeApiKey(ctx, { workspaceId: w1.id, id: apiKey.id });
    expect(again.revokedAt).toEqual(revoked.revokedAt);
    expect(again.revokedById).toBe(user.id);
    expect((await findKeyForVerification(t.db, apiKey.id))!.revokedAt).toEqual(revoked.revokedAt);
  });

  test("revoking another workspace's key → not-found, and the key stays active", async () => {
    const { apiKey } = await createApiKey(ctx, { workspaceId: w2.id, label: "w2 key" });
    const err = await appError(revokeApiKey(ctx, { workspaceId: w1.id, id: apiKey.id }));
    expect(err.slug).toBe("not-found");
    expect(err.status).toBe(404);
    // The same answer as for a key that does not exist at all.
    const missing = await appError(revokeApiKey(ctx, { workspaceId: w1.id, id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }));
    expect([missing.slug, missing.detail]).toEqual([err.slug, err.detail]);
    expect((await findKeyForVerification(t.db, apiKey.id))!.revokedAt).toBeNull();
  });

  test("labels are trimmed and 1–100 characters", async () => {
    for (const label of ["", "   ", "x".repeat(101)]) {
      const err = await appError(createApiKey(ctx, { workspaceId: w1.id, label }));
      expect(err.slug).toBe("validation-failed");
      expect(err.extensions.errors).toEqual([expect.objectContaining({ field: "label" })]);
    }
    const longest = await createApiKey(ctx, { workspaceId: w1.id, label: ` ${"y".repeat(100)} ` });
    expect(longest.apiKey.label).toBe("y".repeat(100));
  });

  test("a key for a workspace that does not exist → not-found, and no row", async () => {
    const err = await appError(createApiKey(ctx, { workspaceId: "01ARZ3NDEKTSV4RRFFQ69G5FAV", label: "orphan" }));
    expect(err.slug).toBe("not-found");
    expect(await t.db.prisma.apiKey.count({ where: { label: "orphan" } })).toBe(0);
  });

  test("a duplicate workspace slug → conflict, without the constraint's name", async () => {
    const slug = uniqueSlug("dup");
    await createWorkspace(ctx, { slug, name: "First" });
    const err = await appError(createWorkspace(t.db, { slug, name: "Second" }));
    expect(err.slug).toBe("conflict");
    expect(err.status).toBe(409);
    expect(err.detail).not.toMatch(/workspaces_slug_key|constraint|P2002|unique/i);
    expect(JSON.stringify(err.extensions)).not.toMatch(/workspaces_slug_key|constraint/i);
    expect(await t.db.prisma.workspace.count({ where: { slug } })).toBe(1);
  });

  test.each([
    ["too short", "ab"],
    ["too long", "a".repeat(41)],
    ["upper case", "Acme"],
    ["underscore", "my_team"],
    ["space", "my team"],
    ["leading dash", "-acme"],
    ["trailing dash", "acme-"],
  ])("an invalid slug (%s) → validation-failed", async (_name, slug) => {
    const err = await appError(createWorkspace(ctx, { slug, name: "X" }));
    expect(err.slug).toBe("validation-failed");
    expect(err.extensions.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: "slug" })]));
  });

  test("slugs of 3 and 40 characters with digits and dashes are accepted", async () => {
    const short = await createWorkspace(ctx, { slug: `a${slugCounter++ % 10}z`, name: "Short" });
    expect(short.slug).toHaveLength(3);
    const long = await createWorkspace(ctx, { slug: `${uniqueSlug("long")}-`.padEnd(40, "9"), name: "  Long  " });
    expect(long.slug).toHaveLength(40);
    expect(long.name).toBe("Long");
  });

  test("the seed script prints one key that verifies against the stored hash, and reuses the workspace", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vessel-seed-"));
    try {
      const env: Record<string, string> =
        backend === "postgres"
          ? { DATABASE_URL: t.url!, VESSEL_DATA_DIR: dataDir, VESSEL_MASTER_KEY: Buffer.alloc(32, 3).toString("base64") }
          : { VESSEL_DATA_DIR: dataDir };
      if (backend === "pglite") {
        // Start the folder from the migrated snapshot: initdb in the child would add ~10 s.
        const preload = await openDatabase({ dataDir: path.join(dataDir, "pglite"), loadDataDir: await pgliteDump("migrated") });
        await preload.close();
      }
      const slug = uniqueSlug("seeded");
      const first = await runSeed(env, ["--workspace", slug, "--label", "from seed"]);
      const second = await runSeed(env, ["--workspace", slug]);

      // stdout is exactly the key on its own line; the human line goes to stderr.
      expect(first.stdout).toMatch(/^vs_\S+\n$/);
      const key = first.stdout.trimEnd();
      expect(key).toMatch(keyShape);
      expect(first.stderr).toContain(slug);
      expect(first.stderr).not.toContain(key.split(".")[1]);
      expect(second.stderr).toContain("existing");

      const db = backend === "postgres" ? t.db : await openDatabase({ dataDir: path.join(dataDir, "pglite") });
      try {
        const parsed = parseApiKey(key)!;
        const record = await findKeyForVerification(db, parsed.id);
        expect(record).toMatchObject({ prefix: parsed.prefix, revokedAt: null });
        expect(await verifySecret(record!.secretHash, parsed.secret)).toBe(true);
        const workspace = await db.prisma.workspace.findUniqueOrThrow({ where: { slug } });
        expect(record!.workspaceId).toBe(workspace.id);
        const labels = (await db.prisma.apiKey.findMany({ where: { workspaceId: workspace.id } })).map((k) => k.label);
        expect(labels.sort()).toEqual(["from seed", "seed"]);
      } finally {
        if (db !== t.db) await db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
