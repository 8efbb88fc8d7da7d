import { Prisma } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { executeStatement, queryStatement } from "../../kernel/support.ts";

/**
 * Each workspace's extension quota (`VESSEL_EXTENSIONS_MAX_PER_WORKSPACE` extensions,
 * `VESSEL_EXTENSIONS_MAX_BYTES_PER_WORKSPACE` bytes of zips), counted in the database so it holds across
 * nodes. An upload reserves its place before its zip is checked (one statement: the row of
 * `extension_reservations` is written only if `vessel_extension_room`, under a per-workspace advisory
 * lock, finds room counting stored extensions and reservations alike), so N parallel uploads cannot
 * pass it; the reservation becomes the extension's row in one transaction, or is released when the
 * upload fails. Deleting an extension frees its place. A reservation whose node died mid-upload stops
 * counting after RESERVATION_MINUTES.
 */

const RESERVATION_MINUTES = 15;

export async function reserveExtension(ctx: ServiceContext, workspaceId: string, id: string, bytes: number): Promise<void> {
  const { maxPerWorkspace, maxBytesPerWorkspace } = ctx.deps.config.extensions;
  const [row] = await queryStatement<{ verdict: string }>(
    ctx.deps.db,
    Prisma.sql`WITH "room" AS MATERIALIZED (
        SELECT "vessel_extension_room"(${workspaceId}::text, ${maxPerWorkspace}::int, ${maxBytesPerWorkspace}::bigint, ${bytes}::bigint) AS "verdict"
      ), "reserved" AS (
        INSERT INTO "extension_reservations" ("id", "workspace_id", "size_bytes", "expires_at")
        SELECT ${id}::text, ${workspaceId}::text, ${bytes}::int, now() + make_interval(mins => ${RESERVATION_MINUTES}::int) FROM "room" WHERE "verdict" = 'ok'
        RETURNING 1
      )
      SELECT "verdict" FROM "room"`,
  );
  const verdict = row?.verdict;
  if (verdict === "ok") return;
  const limit = verdict === "bytes" ? maxBytesPerWorkspace : maxPerWorkspace;
  throw new AppError(
    "extension-quota-exceeded",
    verdict === "bytes"
      ? `This workspace may store ${maxBytesPerWorkspace} bytes of extension zips; this one (${bytes} bytes) would pass that. Delete one it no longer needs.`
      : `This workspace may store ${maxPerWorkspace} extension${maxPerWorkspace === 1 ? "" : "s"}; delete one it no longer needs.`,
    { quota: verdict === "bytes" ? "bytes" : "count", limit },
  );
}

/** The upload failed: its place is free again. */
export async function releaseExtension(ctx: ServiceContext, id: string): Promise<void> {
  await executeStatement(ctx.deps.db, Prisma.sql`DELETE FROM "extension_reservations" WHERE "id" = ${id}`);
}
