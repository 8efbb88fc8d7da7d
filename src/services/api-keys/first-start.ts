import fs from "node:fs/promises";
import path from "node:path";
import { createApiKey } from "./api-keys.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { createWorkspace } from "../workspaces/workspaces.ts";
import { firstOwnerEmail } from "../sign-ins/console-sign-in.ts";
import { ulid } from "../../ids.ts";

export const firstKeyFileName = "first-api-key";

/**
 * The embedded default's first start: with no workspace at all, create `default` and one API key,
 * and write the key (mode 0600) into the data folder, so a new user can call the API at once without
 * stopping the server to run the seed script. The key is never logged; the log names the file.
 * Returns the file's path when it wrote one.
 */
export async function provisionFirstKey(deps: AppDeps, dataDir: string): Promise<string | null> {
  if ((await deps.db.prisma.workspace.count()) > 0) return null;
  const ctx: ServiceContext = { deps, requestId: "first-start", log: deps.log, principal: null, ip: null };
  const workspace = await createWorkspace(ctx, { slug: "default", name: "Default" });
  const now = deps.now();
  const owner = await deps.db.prisma.user.upsert({
    where: { email: firstOwnerEmail(deps) },
    create: { id: ulid(now.getTime()), email: firstOwnerEmail(deps), createdAt: now },
    update: {},
  });
  await deps.db.prisma.membership.create({ data: { workspaceId: workspace.id, userId: owner.id, role: "OWNER", createdAt: now } });
  const { secret } = await createApiKey(ctx, { workspaceId: workspace.id, label: "first start" });
  const file = path.join(dataDir, firstKeyFileName);
  // Written aside and renamed into place: whoever sees the file (a person, a script polling for it)
  // reads the whole key, never the empty file between its creation and its write.
  const partial = `${file}.${process.pid}.partial`;
  await fs.writeFile(partial, `${secret}\n`, { mode: 0o600 });
  await fs.rename(partial, file);
  return file;
}
