import { createHash } from "node:crypto";
import { ulid } from "../../ids.ts";
import type { BrowserLease } from "../../browser/pool-types.ts";
import { extensionSupport, findChromium } from "../../browser/chromium-command.ts";
import { loadExtensions } from "../../browser/extension-loader.ts";
import { newDataKey, openRecord, sealRecord, unwrapDataKey } from "../../crypto/data-keys.ts";
import type { Extension } from "../../generated/prisma/client.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../kernel/errors.ts";
import { prismaOf } from "../../kernel/support.ts";
import { checkExtensionZip } from "./extension-zip.ts";

/**
 * A workspace's browser extensions (POST /v1/extensions): each an uploaded zip of an unpacked
 * Manifest V3 extension, checked, then stored sealed under a data key of its own (deleting the row
 * destroys it). A session created with `extension_ids` has them loaded into its browser only, before
 * its first client; clients can never load one themselves (the CDP policy refuses Extensions.*).
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
const view = (e: Extension): ExtensionView => ({ id: e.id, name: e.name, version: e.version, sizeBytes: e.sizeBytes, sha256: e.sha256, createdAt: e.createdAt });

const inWorkspace = (ctx: ServiceContext, workspace?: string) => actingWorkspace(ctx, workspace, "manage its extensions");

/** The key AAD of an extension's wrapped data key (master-key rotation re-wraps with it). */
export { keyAad as extensionKeyAad };

export async function uploadExtension(ctx: ServiceContext, zip: Buffer, workspace?: string): Promise<ExtensionView> {
  const workspaceId = await inWorkspace(ctx, workspace);
  const checked = checkExtensionZip(zip);
  const id = `ext_${ulid()}`;
  const { dataKey, wrappedKey, masterKeyId } = newDataKey(ctx.deps.masterKey, keyAad(id));
  try {
    const row = await prismaOf(ctx).extension.create({
      data: {
        id, workspaceId, name: checked.name, version: checked.version, sizeBytes: zip.length,
        sha256: createHash("sha256").update(zip).digest("hex"), ciphertext: sealRecord(dataKey, zip, id), wrappedKey, masterKeyId,
      },
    });
    if (ctx.audit) ctx.audit.target = id;
    return view(row);
  } finally {
    dataKey.fill(0);
  }
}

export async function listExtensions(ctx: ServiceContext, workspace?: string): Promise<ExtensionView[]> {
  const workspaceId = await inWorkspace(ctx, workspace);
  const rows = await prismaOf(ctx).extension.findMany({ where: { workspaceId }, orderBy: { id: "asc" }, take: 1000 });
  return rows.map(view);
}

async function findExtension(ctx: ServiceContext, id: string, workspace?: string): Promise<Extension> {
  const workspaceId = await inWorkspace(ctx, workspace);
  const row = await prismaOf(ctx).extension.findFirst({ where: { id, workspaceId } });
  if (ctx.audit) ctx.audit.target = id;
  if (!row) throw new AppError("not-found", "No extension with this id in this workspace.");
  return row;
}

export async function getExtension(ctx: ServiceContext, id: string, workspace?: string): Promise<ExtensionView> {
  return view(await findExtension(ctx, id, workspace));
}

/** Deletes the row and with it the only wrapped copy of its key. Sessions running with it keep it until they end. */
export async function deleteExtension(ctx: ServiceContext, id: string, workspace?: string): Promise<void> {
  const row = await findExtension(ctx, id, workspace);
  await prismaOf(ctx).extension.deleteMany({ where: { id: row.id, workspaceId: row.workspaceId } });
}

/**
 * Checks a create's `extension_ids` before a browser is taken: this node's browsers must be able to
 * load extensions (422 extensions-unsupported), and each id must be the workspace's (404).
 */
export async function checkSessionExtensions(ctx: ServiceContext, workspaceId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const executable = findChromium(ctx.deps.config.browser.executablePath);
  const support = executable ? extensionSupport(executable) : ({ ok: false, why: "this node has no Chromium" } as const);
  if (!support.ok) throw new AppError("extensions-unsupported", `This deployment cannot load extensions: ${support.why}.`);
  const found = await prismaOf(ctx).extension.count({ where: { workspaceId, id: { in: [...ids] } } });
  if (found !== new Set(ids).size) throw new AppError("not-found", "No extension with one of these extension_ids in this workspace.");
}

/** Opens the session's extensions and loads them into its browser, in the order asked. */
export async function loadSessionExtensions(ctx: ServiceContext, workspaceId: string, ids: readonly string[], lease: BrowserLease): Promise<void> {
  if (ids.length === 0) return;
  const rows = await prismaOf(ctx).extension.findMany({ where: { workspaceId, id: { in: [...ids] } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const unpacked = ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new AppError("not-found", "An extension of extension_ids was deleted meanwhile.");
    const dataKey = unwrapDataKey(ctx.deps.masterKey, keyAad(row.id), row.wrappedKey);
    try {
      const files = checkExtensionZip(openRecord(dataKey, row.ciphertext, row.id)).files;
      return { id: row.id, files };
    } finally {
      dataKey.fill(0);
    }
  });
  await loadExtensions(lease, unpacked);
}
