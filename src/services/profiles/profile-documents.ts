// Stored profile documents: sealing one (serialised, checked, encrypted), writing it into its row with
// the call's audit entry in one statement, and reading and opening it again. What a session's browser
// has to do with profiles (capture, restore, save on release) is in profile-sessions.ts.
import { isPlainDocumentV1 } from "../../browser/profiles/rules.ts";
import {
  CURRENT_FORMAT_VERSION,
  ProfileDocumentV1,
  ProfileFormatError,
  parseProfileDocument,
  serializeDocument,
  type DocumentStats,
  type ProfileDocument,
} from "../../browser/profiles/format.ts";
import { ProfileDecryptError, openProfile, sealProfile, type SealedProfile } from "../../crypto/profile-crypto.ts";
import { AppError } from "../../errors.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { queryStatement } from "../../kernel/support.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import { sealedCache } from "./sealed-cache.ts";

/** Serialises and encrypts a document for row `id`, refusing it (413) when it is over the configured size. */
export function sealDocument(deps: AppDeps, row: { id: string; workspaceId: string }, doc: ProfileDocument): { sealed: SealedProfile; stats: DocumentStats } {
  const { json, stats } = serializeDocument(doc);
  try {
    const max = deps.config.profiles.maxBytes;
    if (stats.sizeBytes > max) {
      throw new AppError("profile-too-large", `The profile would be ${stats.sizeBytes} bytes; this deployment stores profiles of at most ${max} bytes.`, {
        size_bytes: stats.sizeBytes,
        max_bytes: max,
      });
    }
    // Never store what restore would refuse to read: a capture that breaks the schema is a fault of ours.
    // The plain check first, as a read does (browser/profiles/rules.ts); the schema only for what it does not accept.
    if (!isPlainDocumentV1(doc)) {
      const check = ProfileDocumentV1.safeParse(doc);
      if (!check.success) throw new Error(`profile document breaks its schema at ${check.error.issues[0]?.path.join(".") ?? "?"}`);
    }
    const sealed = sealProfile(deps.masterKey, row, CURRENT_FORMAT_VERSION, json);
    // Kept for the next read (a start from the profile): if this write does not happen, the row's tag says so.
    sealedCache(deps.db).put(row.id, { workspaceId: row.workspaceId, authTag: Buffer.from(sealed.authTag), ciphertext: sealed.ciphertext });
    return { sealed, stats };
  } finally {
    json.fill(0);
  }
}

/**
 * A profile's sealed document and its counts as columns and values. The bytes go as base64 text
 * decoded by the database: as a bytea parameter the embedded database's own encoding of 150 KiB
 * took 30–50 ms.
 */
function sealedColumns(sealed: SealedProfile, stats: DocumentStats): Array<[string, Prisma.Sql]> {
  const bytes = (b: Uint8Array) => Prisma.sql`decode(${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64")}, 'base64')`;
  return [
    ["format_version", Prisma.sql`${sealed.formatVersion}`],
    ["ciphertext", bytes(sealed.ciphertext)],
    ["nonce", bytes(sealed.nonce)],
    ["auth_tag", bytes(sealed.authTag)],
    ["wrapped_key", bytes(sealed.wrappedKey)],
    ["master_key_id", Prisma.sql`${sealed.masterKeyId}`],
    ["size_bytes", Prisma.sql`${stats.sizeBytes}`],
    ["cookie_count", Prisma.sql`${stats.cookieCount}`],
    ["origin_count", Prisma.sql`${stats.originCount}`],
    ["key_count", Prisma.sql`${stats.keyCount}`],
  ];
}

/**
 * `write` (an INSERT or UPDATE of profiles, RETURNING what the caller wants) and the call's audit
 * entry (`audit`, null for none), written only when a row was written, in one statement; its rows.
 *
 * Why one statement, run directly on the embedded database (kernel/support.ts): a save through
 * Prisma's layer in a transaction spent 22–29 ms on the UPDATE of a 150 KiB document alone, then
 * ~7 ms on the audit entry and a re-read of the row; this is 5–8 ms in all.
 */
function writeAudited<T>(db: AppDeps["db"], write: Prisma.Sql, audit: ((when?: Prisma.Sql) => Prisma.Sql) | null): Promise<T[]> {
  return queryStatement<T>(
    db,
    Prisma.sql`WITH "saved" AS (${write})${audit ? Prisma.sql`, "save_audit" AS (${audit(Prisma.sql`EXISTS (SELECT 1 FROM "saved")`)})` : Prisma.empty}
    SELECT * FROM "saved"`,
  );
}

/**
 * Replaces a profile's sealed document and counts in place (a save), with its audit entry, in one
 * statement: the answer is the row's `returning` columns, none when it is gone (another
 * workspace's, or deleted), and then no entry is written.
 */
export function storeSealed<T>(
  db: AppDeps["db"],
  row: { id: string; workspaceId: string },
  sealed: SealedProfile,
  stats: DocumentStats,
  saved: { sourceSessionId: string; at: Date; returning: Prisma.Sql },
  audit: ((when?: Prisma.Sql) => Prisma.Sql) | null,
): Promise<T[]> {
  const set: Array<[string, Prisma.Sql]> = [
    ...sealedColumns(sealed, stats),
    ["source_session_id", Prisma.sql`${saved.sourceSessionId}`],
    ["updated_at", Prisma.sql`${saved.at}`],
  ];
  return writeAudited<T>(
    db,
    Prisma.sql`UPDATE profiles SET ${Prisma.join(set.map(([column, value]) => Prisma.sql`${Prisma.raw(column)} = ${value}`))}
    WHERE id = ${row.id} AND workspace_id = ${row.workspaceId} RETURNING ${saved.returning}`,
    audit,
  );
}

/** A new profile row holding a sealed document, with its audit entry, in one statement; the row's `returning` columns. */
export function insertSealed<T>(
  db: AppDeps["db"],
  row: { id: string; workspaceId: string; label: string; sourceSessionId: string | null; at: Date },
  sealed: SealedProfile,
  stats: DocumentStats,
  returning: Prisma.Sql,
  audit: ((when?: Prisma.Sql) => Prisma.Sql) | null,
): Promise<T[]> {
  const values: Array<[string, Prisma.Sql]> = [
    ["id", Prisma.sql`${row.id}`],
    ["workspace_id", Prisma.sql`${row.workspaceId}`],
    ["label", Prisma.sql`${row.label}`],
    ["source_session_id", Prisma.sql`${row.sourceSessionId}`],
    ...sealedColumns(sealed, stats),
    ["created_at", Prisma.sql`${row.at}`],
    ["updated_at", Prisma.sql`${row.at}`],
  ];
  return writeAudited<T>(
    db,
    Prisma.sql`INSERT INTO profiles (${Prisma.raw(values.map(([column]) => column).join(", "))})
    VALUES (${Prisma.join(values.map(([, value]) => value))}) RETURNING ${returning}`,
    audit,
  );
}

/** A profile row's sealed columns, bytes as base64 (see readDocument); ciphertext null when it is the payload the cache holds. */
interface SealedRow {
  id: string;
  workspaceId: string;
  formatVersion: number;
  ciphertext: string | null;
  nonce: string;
  authTag: string;
  wrappedKey: string;
  masterKeyId: string;
}

const fromBase64 = (b64: string) => Buffer.from(b64, "base64");

/** The stored document of a profile of the workspace; 422 profile-unreadable when it cannot be decrypted or parsed. */
export async function readDocument(deps: AppDeps, source: ServiceContext | undefined, workspaceId: string, id: string): Promise<ProfileDocument> {
  const cache = sealedCache(deps.db);
  const cached = cache.get(id, workspaceId);
  // The bytes come as base64 text: the embedded database hands a bytea out as hex that is turned into
  // bytes in JavaScript, 15–45 ms for a 150 KiB profile against ~1.5 ms this way (on a session's start).
  // The payload is left out when it is the one held here (sealed-cache.ts).
  const [row] = await queryStatement<SealedRow>(
    deps.db,
    Prisma.sql`SELECT id, workspace_id AS "workspaceId", format_version AS "formatVersion",
      CASE WHEN auth_tag = decode(${cached?.authTag.toString("base64") ?? ""}, 'base64') AND encode(ciphertext_sha256, 'hex') = ${cached?.sha256 ?? ""} THEN NULL
        ELSE encode(ciphertext, 'base64') END AS ciphertext,
      encode(nonce, 'base64') AS nonce, encode(auth_tag, 'base64') AS "authTag", encode(wrapped_key, 'base64') AS "wrappedKey",
      master_key_id AS "masterKeyId" FROM profiles WHERE id = ${id} AND workspace_id = ${workspaceId}`,
  );
  if (!row) {
    cache.drop(id);
    throw new AppError("not-found", "No profile with this id in this workspace.");
  }
  let plaintext: Buffer | undefined;
  try {
    const authTag = fromBase64(row.authTag);
    const ciphertext = row.ciphertext === null ? cached!.ciphertext : fromBase64(row.ciphertext);
    const sealed = {
      id: row.id,
      workspaceId: row.workspaceId,
      formatVersion: Number(row.formatVersion),
      masterKeyId: row.masterKeyId,
      ciphertext,
      nonce: fromBase64(row.nonce),
      authTag,
      wrappedKey: fromBase64(row.wrappedKey),
    };
    try {
      plaintext = openProfile(deps.masterKey, sealed);
    } catch (err) {
      // Not the payload the tag authenticates after all: read the stored one.
      if (row.ciphertext !== null || !(err instanceof ProfileDecryptError) || err.reason !== "unreadable") throw err;
      cache.drop(id);
      return await readDocument(deps, source, workspaceId, id);
    }
    // A payload held here passed the document's checks as it was written or first read here: what
    // decrypts under its tag is that very payload.
    const json: unknown = JSON.parse(plaintext.toString("utf8"));
    const doc = row.ciphertext === null ? (json as ProfileDocument) : parseProfileDocument(json);
    if (row.ciphertext !== null) cache.put(id, { workspaceId, authTag, ciphertext });
    return doc;
  } catch (err) {
    if (err instanceof ProfileDecryptError && err.reason === "other-master-key") {
      throw new AppError("profile-unreadable", "The profile is encrypted under a master key this deployment does not have.");
    }
    if (err instanceof ProfileDecryptError || err instanceof ProfileFormatError || err instanceof SyntaxError) {
      // The reason (never the content) goes to the log for operators.
      (source?.log ?? deps.log).warn({ profileId: id, reason: err instanceof ProfileFormatError ? err.message : err.name }, "profile unreadable");
      throw new AppError("profile-unreadable", "The profile could not be decrypted or is not a valid profile document.");
    }
    throw err;
  } finally {
    plaintext?.fill(0);
  }
}
