// Creates a workspace (or reuses it) and one API key in the configured database, for development.
//   npm run seed -- [--workspace <slug>] [--label <label>] [--name <workspace name>]
// The key goes to stdout on a line of its own (`KEY=$(npm run -s seed)`); everything else to stderr.
// With the embedded PGlite database (no DATABASE_URL), stop the server first: it holds the data folder.
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import type { Database } from "../src/db/client.ts";
import { AppError } from "../src/errors.ts";
import { createLogger } from "../src/logger.ts";
import { createApiKey } from "../src/services/api-keys/api-keys.ts";
import { createDeps, internalContext } from "../src/deps.ts";
import { createWorkspace, findWorkspaceBySlug } from "../src/services/workspaces/workspaces.ts";

const usage = "usage: seed [--workspace <slug>] [--label <label>] [--name <workspace name>]";

async function main(): Promise<number> {
  let options: { workspace: string; label: string; name?: string; help?: boolean };
  try {
    ({ values: options } = parseArgs({
      options: {
        workspace: { type: "string", default: "dev" },
        label: { type: "string", default: "seed" },
        name: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`seed: ${(err as Error).message}\n${usage}\n`);
    return 2;
  }
  if (options.help) {
    process.stderr.write(`${usage}\n`);
    return 0;
  }

  const config = loadConfig();
  const dataDir = path.join(config.database.dataDir, "pglite");
  let db: Database;
  try {
    db = await openDatabase({ url: config.database.url, dataDir });
  } catch (err) {
    const message = (err as Error).message;
    if (!config.database.url && /in use by process/.test(message)) {
      process.stderr.write(
        `seed: cannot open the embedded database while the server runs: ${message}\n` +
          "  The running server holds the PGlite data folder. Stop it, run the seed, then start it again " +
          "(or point both at PostgreSQL with DATABASE_URL).\n",
      );
      return 1;
    }
    throw err;
  }

  let closeDeps = async () => {};
  try {
    const { deps, close } = await createDeps(config, db, createLogger("silent"), { startBrowsers: false });
    closeDeps = close;
    const ctx = internalContext(deps, "seed");
    const slug = options.workspace;
    let created = false;
    let workspace = await findWorkspaceBySlug(ctx, slug);
    if (!workspace) {
      try {
        workspace = await createWorkspace(ctx, { slug, name: options.name ?? slug });
        created = true;
      } catch (err) {
        // Someone created it between our lookup and insert: use theirs.
        if (!(err instanceof AppError && err.slug === "conflict")) throw err;
        workspace = await findWorkspaceBySlug(ctx, slug);
        if (!workspace) throw err;
      }
    }
    const { apiKey, secret } = await createApiKey(ctx, { workspaceId: workspace.id, label: options.label });
    process.stdout.write(`${secret}\n`);
    process.stderr.write(
      `seed: API key ${apiKey.prefix} ("${apiKey.label}") created in ${created ? "new" : "existing"} workspace ` +
        `"${workspace.slug}" (${workspace.id}) in ${db.kind === "pglite" ? path.resolve(dataDir) : "PostgreSQL"}. ` +
        "The key above is shown only this once.\n",
    );
    return 0;
  } finally {
    await closeDeps();
    await db.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`seed: ${describe(err)}\n`);
    process.exitCode = 1;
  },
);

function describe(err: unknown): string {
  if (err instanceof AppError) {
    const errors = err.extensions.errors;
    if (Array.isArray(errors) && errors.length > 1) {
      return errors.map((e: { field: string; message: string }) => `--${e.field === "slug" ? "workspace" : e.field}: ${e.message}`).join("; ");
    }
    return err.detail;
  }
  return err instanceof Error ? err.message : String(err);
}
