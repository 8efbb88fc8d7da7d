import { ulid } from "../../ids.ts";
import type { BrowserLease } from "../../browser/pool/types.ts";
import { extensionSupport, findChromium } from "../../browser/launch/command.ts";
import { loadExtensions } from "../../browser/features/extension-loader.ts";
import { newDataKey, openRecord, sealRecord, unwrapDataKey } from "../../crypto/data-keys.ts";
import type { Extension } from "../../generated/prisma/client.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { prismaOf } from "../../kernel/support.ts";
import { EXTENSION_ZIP_MAX_BYTES, problemOf, requireJail } from "./extension-zip.ts";
import { releaseExtension, reserveExtension } from "./extension-quota.ts";
import { readSealed, storeReserved } from "./extension-rows.ts";
import { PreparedRefusal, extensionDeletions } from "./prepared-extensions.ts";

/**
 * A workspace's browser extensions (POST /v1/extensions): each an uploaded zip of an unpacked
 * Manifest V3 extension, checked and unpacked once off the event loop (prepared-extensions.ts), then
 * stored sealed under a data key of its own (deleting the row destroys it). A session created with
 * `extension_ids` gets a copy of each prepared folder loaded into its browser only, before its first
 * client; clients can never load one themselves (the CDP policy refuses Extensions.*). Only jailed
 * browsers get extensions, and none that asks for a debugging or native channel (extension-manifest.ts).
 */

export interface ExtensionView {
  id: string;
  name: string;
  version: string;
  sizeBytes: number;
  sha256: string;
  createdAt: Date;
}

/** The most extensions one session may load. */
export const MAX_EXTENSIONS_PER_SESSION = 10;

const keyAad = (id: string) => `extensions:${id}:data-key`;
/** The columns a view shows: never the sealed zip, which the embedded database would read in on this thread. */
const columns = { id: true, workspaceId: true, name: true, version: true, sizeBytes: true, sha256: true, createdAt: true } as const;
type Row = Pick<Extension, keyof typeof columns>;
const view = (e: Row): ExtensionView => ({ id: e.id, name: e.name, version: e.version, sizeBytes: e.sizeBytes, sha256: e.sha256, createdAt: e.createdAt });

const inWorkspace = (ctx: ServiceContext) => actingWorkspace(ctx, "manage its extensions");

/** The key AAD of an extension's wrapped data key (master-key rotation re-wraps with it). */
export { keyAad as extensionKeyAad };

/**
 * Its place in the workspace's quota is reserved first (409 beyond it), then the zip is checked and
 * unpacked on the extension thread (422 invalid-extension / extension-permission-refused), then the
 * row replaces the reservation. Whatever fails on the way releases the place and the unpacked folder.
 */
export async function uploadExtension(ctx: ServiceContext, zip: Buffer): Promise<ExtensionView> {
  const workspaceId = await inWorkspace(ctx);
  requireJail(ctx);
  if (zip.length === 0 || zip.length > EXTENSION_ZIP_MAX_BYTES) {
    throw new AppError("invalid-extension", `Not an extension this deployment can load: the zip must hold 1 to ${EXTENSION_ZIP_MAX_BYTES} bytes.`);
  }
  const id = `ext_${ulid()}`;
  if (ctx.audit) ctx.audit.target = id;
  await reserveExtension(ctx, workspaceId, id, zip.length);
  let discard = async () => {};
  try {
    const checked = await ctx.deps.extensions.check(id, zip);
    discard = checked.discard;
    if (checked.result.kind !== "prepared") throw problemOf(checked.result);
    const { name, version, sha256 } = checked.result;
    const { dataKey, wrappedKey, masterKeyId } = newDataKey(ctx.deps.masterKey, keyAad(id));
    try {
      const sealed = { id, workspaceId, name, version, sizeBytes: zip.length, sha256, ciphertext: sealRecord(dataKey, zip, id), wrappedKey, masterKeyId };
      const createdAt = await storeReserved(ctx, sealed);
      return { id, name, version, sizeBytes: zip.length, sha256, createdAt };
    } finally {
      dataKey.fill(0);
    }
  } catch (err) {
    await discard().catch(() => {});
    await releaseExtension(ctx, id).catch((e: unknown) =>
      ctx.deps.log.warn({ err: e, extension: id }, "an extension's reservation was not released (it expires)"),
    );
    throw err;
  }
}

export async function listExtensions(ctx: ServiceContext): Promise<ExtensionView[]> {
  const workspaceId = await inWorkspace(ctx);
  const rows = await prismaOf(ctx).extension.findMany({ where: { workspaceId }, orderBy: { id: "asc" }, take: 1000, select: columns });
  return rows.map(view);
}

async function findExtension(ctx: ServiceContext, id: string): Promise<Row> {
  const workspaceId = await inWorkspace(ctx);
  const row = await prismaOf(ctx).extension.findFirst({ where: { id, workspaceId }, select: columns });
  if (ctx.audit) ctx.audit.target = id;
  if (!row) throw new AppError("not-found", "No extension with this id in this workspace.");
  return row;
}

export async function getExtension(ctx: ServiceContext, id: string): Promise<ExtensionView> {
  return view(await findExtension(ctx, id));
}

/**
 * Deletes the row and with it the only wrapped copy of its key, which frees its place in the quota,
 * and every node's prepared copy. Sessions running with it keep it until they end.
 */
export async function deleteExtension(ctx: ServiceContext, id: string): Promise<void> {
  const row = await findExtension(ctx, id);
  await prismaOf(ctx).extension.deleteMany({ where: { id: row.id, workspaceId: row.workspaceId } });
  // Every node drops its prepared copy (this one too, through its own subscription).
  await ctx.deps.pubsub.publish(extensionDeletions, row.id).catch(() => ctx.deps.extensions.drop(row.id));
}

/**
 * Checks a create's `extension_ids` before a browser is taken: this node's browsers must be able to
 * load extensions (422 extensions-unsupported) and be jailed (422 extensions-need-jail), each id must
 * be the workspace's (404), and each is prepared on this node (once; a stored one that fails today's
 * checks is 422). A repeated id is one extension: it is read and prepared once.
 */
export async function checkSessionExtensions(ctx: ServiceContext, workspaceId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const executable = findChromium(ctx.deps.config.browser.executablePath);
  const support = executable ? extensionSupport(executable) : ({ ok: false, why: "this node has no Chromium" } as const);
  if (!support.ok) throw new AppError("extensions-unsupported", `This deployment cannot load extensions: ${support.why}.`);
  requireJail(ctx);
  await preparedFolders(ctx, workspaceId, ids);
}

/** Copies the session's prepared extensions into its browser's folder and loads them, in the order asked. */
export async function loadSessionExtensions(ctx: ServiceContext, workspaceId: string, ids: readonly string[], lease: BrowserLease): Promise<void> {
  if (ids.length === 0) return;
  await loadExtensions(lease, await preparedFolders(ctx, workspaceId, ids));
}

async function preparedFolders(ctx: ServiceContext, workspaceId: string, ids: readonly string[]): Promise<Array<{ id: string; folder: string }>> {
  const unique = [...new Set(ids)];
  // Only the digests: the sealed zip is read when this node has yet to prepare one.
  const rows = await prismaOf(ctx).extension.findMany({ where: { workspaceId, id: { in: unique } }, select: { id: true, sha256: true } });
  const digests = new Map(rows.map((r) => [r.id, r.sha256]));
  if (digests.size !== unique.length) throw new AppError("not-found", "No extension with one of these extension_ids in this workspace.");
  return Promise.all(
    unique.map(async (id) => {
      const folder = await ctx.deps.extensions
        .folder(id, digests.get(id)!, () => openStored(ctx, workspaceId, id))
        .catch((err: unknown) => {
          throw err instanceof PreparedRefusal ? problemOf(err.result) : err;
        });
      return { id, folder };
    }),
  );
}

async function openStored(ctx: ServiceContext, workspaceId: string, id: string): Promise<Uint8Array> {
  const row = await readSealed(ctx, workspaceId, id);
  if (!row) throw new AppError("not-found", "An extension of extension_ids was deleted meanwhile.");
  const dataKey = unwrapDataKey(ctx.deps.masterKey, keyAad(id), row.wrappedKey);
  try {
    return openRecord(dataKey, row.ciphertext, id);
  } finally {
    dataKey.fill(0);
  }
}
