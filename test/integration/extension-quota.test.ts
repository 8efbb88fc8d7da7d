// The per-workspace extension quota as the database decides it (src/services/extensions/extension-quota.ts
// and the `vessel_extension_room` function of its migration): on PostgreSQL, concurrent reservations on
// as many connections as the pool gives are decided one after the other (PGlite serialises everything).
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ServiceContext } from "../../src/kernel/context.ts";
import { AppError } from "../../src/errors.ts";
import { releaseExtension, reserveExtension } from "../../src/services/extensions/extension-quota.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

describeEachBackend("the workspace extension quota in the database", (backend) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(backend);
  });
  afterAll(async () => t?.dispose());

  const ctx = (maxPerWorkspace: number, maxBytesPerWorkspace: number) =>
    ({ deps: { db: t.db, config: { extensions: { maxPerWorkspace, maxBytesPerWorkspace } } } }) as unknown as ServiceContext;
  async function workspace(): Promise<string> {
    const id = `ws_${ulid()}`;
    await t.db.prisma.workspace.create({ data: { id, slug: `ext-${ulid().toLowerCase()}`, name: "ext" } });
    return id;
  }
  const reserve = (c: ServiceContext, ws: string, bytes = 100) =>
    reserveExtension(c, ws, `ext_${ulid()}`, bytes).then(
      () => "ok",
      (err: unknown) => (err instanceof AppError ? String(err.extensions.quota) : Promise.reject(err)),
    );

  test("30 reservations at once: exactly the count are taken, and stored extensions count too", async () => {
    const ws = await workspace();
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => reserve(ctx(5, 1 << 30), ws)));
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(5);
    expect(outcomes.filter((o) => o === "count")).toHaveLength(25);
    const other = await workspace();
    await t.db.prisma.extension.create({
      data: {
        id: `ext_${ulid()}`,
        workspaceId: other,
        name: "x",
        version: "1",
        sizeBytes: 100,
        sha256: "x",
        ciphertext: Buffer.alloc(1),
        wrappedKey: Buffer.alloc(1),
        masterKeyId: "m",
      },
    });
    expect(await reserve(ctx(2, 1 << 30), other)).toBe("ok");
    expect(await reserve(ctx(2, 1 << 30), other)).toBe("count");
  });

  test("bytes are reserved the same way; a release frees them, an expired reservation stops counting", async () => {
    const ws = await workspace();
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => reserve(ctx(100, 1000), ws, 300)));
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(3);
    expect(outcomes.filter((o) => o === "bytes")).toHaveLength(9);
    const [held] = await t.db.prisma.extensionReservation.findMany({ where: { workspaceId: ws }, take: 1 });
    await releaseExtension(ctx(100, 1000), held!.id);
    expect(await reserve(ctx(100, 1000), ws, 300)).toBe("ok");
    expect(await reserve(ctx(100, 1000), ws, 300)).toBe("bytes");
    await t.db.prisma.extensionReservation.updateMany({ where: { workspaceId: ws }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await reserve(ctx(100, 1000), ws, 300)).toBe("ok");
    expect(await t.db.prisma.extensionReservation.count({ where: { workspaceId: ws } })).toBe(1);
  });
});
