import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageState, fromStorageState, type ProfileDocument } from "../../src/browser/profiles/format.ts";
import { readDocument, sealDocument } from "../../src/services/profiles/profile-documents.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

// The payloads a process keeps (src/services/profiles/sealed-cache.ts) never stand in for a row
// whose payload is another: whatever the database holds is what a read returns or refuses.

const state = (value: string) => ({
  cookies: [{ name: "sid", value, domain: "example.com", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" as const }],
  origins: [{ origin: "https://example.com", localStorage: [{ name: "k", value }], sessionStorage: [] }],
});
const doc = (value: string): ProfileDocument => fromStorageState(StorageState.parse(state(value)));

describe("profile payloads kept by the process", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ startBrowsers: false });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  const importProfile = async (value: string) => {
    const res = await fetch(`${t.url}/v1/profiles`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ label: "c", storage_state: state(value) }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { profile_id: string }).profile_id;
  };
  const read = (id: string) => readDocument(t.app.deps, undefined, ws.workspace.id, id);
  const columns = (id: string) =>
    t.app.deps.db.prisma.profile.findUniqueOrThrow({ where: { id }, select: { ciphertext: true, nonce: true, authTag: true, wrappedKey: true } });

  it("reads what the row holds when the row went back to an earlier payload than the one kept", async () => {
    const id = await importProfile("first");
    const first = await columns(id);
    // A later write, sealed (and kept) here, then the row put back as it was (a restore of the database, another node's write).
    const { sealed } = sealDocument(t.app.deps, { id, workspaceId: ws.workspace.id }, doc("second"));
    const { ciphertext, nonce, authTag, wrappedKey } = sealed;
    await t.app.deps.db.prisma.profile.update({ where: { id }, data: { ciphertext, nonce, authTag, wrappedKey } });
    expect((await read(id)).cookies[0]!.value).toBe("second");
    await t.app.deps.db.prisma.profile.update({ where: { id }, data: first });
    expect((await read(id)).cookies[0]!.value).toBe("first");
    expect((await read(id)).origins[0]!.localStorage).toEqual([{ name: "k", value: "first" }]);
  });

  it("refuses a row whose payload, nonce or wrapped key was damaged, though an intact payload is kept", async () => {
    for (const column of ["ciphertext", "nonce", "wrapped_key"]) {
      const id = await importProfile(`v-${column}`);
      expect((await read(id)).cookies[0]!.value).toBe(`v-${column}`);
      await t.app.deps.db.prisma.$executeRawUnsafe(`UPDATE profiles SET ${column} = set_byte(${column}, 3, get_byte(${column}, 3) # 1) WHERE id = $1`, id);
      await expect(read(id)).rejects.toMatchObject({ status: 422 });
    }
  });

  it("keeps each payload's digest itself: a write that also sets the digest of the kept payload cannot pass a damaged one off", async () => {
    const id = await importProfile("digest");
    expect((await read(id)).cookies[0]!.value).toBe("digest");
    const db = t.app.deps.db.prisma;
    const { ciphertextSha256: kept } = await db.profile.findUniqueOrThrow({ where: { id }, select: { ciphertextSha256: true } });
    expect(kept).not.toBeNull();
    await db.$executeRawUnsafe(
      "UPDATE profiles SET ciphertext = set_byte(ciphertext, 3, get_byte(ciphertext, 3) # 1), ciphertext_sha256 = $2 WHERE id = $1",
      id,
      Buffer.from(kept!),
    );
    const [row] = await db.$queryRawUnsafe<Array<{ same: boolean; changed: boolean }>>(
      "SELECT ciphertext_sha256 = sha256(ciphertext) AS same, ciphertext_sha256 <> $2 AS changed FROM profiles WHERE id = $1",
      id,
      Buffer.from(kept!),
    );
    expect(row).toEqual({ same: true, changed: true });
    await expect(read(id)).rejects.toMatchObject({ status: 422 });
  });

  it("is 404 once the row is gone", async () => {
    const id = await importProfile("gone");
    await read(id);
    await t.app.deps.db.prisma.profile.delete({ where: { id } });
    await expect(read(id)).rejects.toMatchObject({ status: 404 });
  });
});
