import { Prisma } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { queryStatement } from "../../kernel/support.ts";

/**
 * The two statements that move an extension's sealed zip, written so that its bytes cross as base64
 * text and PostgreSQL converts them (decode/encode). The embedded database runs every statement on
 * this thread and serialises a bytea parameter byte by byte in JS: storing a 0.48 MB zip that way held
 * the event loop 1.4–1.7 s (Prisma's create and a direct statement alike, at load 15 on 2 cores),
 * as base64 text 55–230 ms (docs/decisions/0131-extension-archives-off-the-loop.md). On PostgreSQL
 * it is the smaller parameter too (4/3 of the bytes instead of hex's 2).
 */

export interface SealedExtension {
  id: string;
  workspaceId: string;
  name: string;
  version: string;
  sizeBytes: number;
  sha256: string;
  ciphertext: Uint8Array;
  wrappedKey: Uint8Array;
  masterKeyId: string;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");

/** Stores the extension in place of its reservation, in one statement; answers its created_at. */
export async function storeReserved(ctx: ServiceContext, e: SealedExtension): Promise<Date> {
  const [row] = await queryStatement<{ created_at: Date | string }>(
    ctx.deps.db,
    Prisma.sql`WITH "reservation" AS (DELETE FROM "extension_reservations" WHERE "id" = ${e.id} RETURNING "id")
      INSERT INTO "extensions" ("id", "workspace_id", "name", "version", "size_bytes", "sha256", "ciphertext", "wrapped_key", "master_key_id", "created_at")
      SELECT "id", ${e.workspaceId}::text, ${e.name}::text, ${e.version}::text, ${e.sizeBytes}::int, ${e.sha256}::text,
        decode(${base64(e.ciphertext)}::text, 'base64'), decode(${base64(e.wrappedKey)}::text, 'base64'), ${e.masterKeyId}::text, now()
      FROM "reservation"
      RETURNING "created_at"`,
  );
  // Only when the upload outlived its reservation (RESERVATION_MINUTES) and another took its place.
  if (!row) throw new AppError("conflict", "The upload took too long and lost its place in the workspace's quota; upload it again.");
  return new Date(row.created_at);
}

/** The sealed zip and wrapped key of one of the workspace's extensions, or undefined. */
export async function readSealed(ctx: ServiceContext, workspaceId: string, id: string): Promise<{ ciphertext: Buffer; wrappedKey: Buffer } | undefined> {
  const [row] = await queryStatement<{ ciphertext: string; wrapped_key: string }>(
    ctx.deps.db,
    Prisma.sql`SELECT encode("ciphertext", 'base64') AS "ciphertext", encode("wrapped_key", 'base64') AS "wrapped_key"
      FROM "extensions" WHERE "id" = ${id} AND "workspace_id" = ${workspaceId}`,
  );
  // encode() breaks its base64 into lines; Buffer.from skips the line breaks.
  return row ? { ciphertext: Buffer.from(row.ciphertext, "base64"), wrappedKey: Buffer.from(row.wrapped_key, "base64") } : undefined;
}
