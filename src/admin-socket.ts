// What the operator asks the running server from its own machine: `npm run sign-in-link` (scripts/admin.ts)
// gets a fresh one-time sign-in link for the local administrator while the server runs, for the one
// printed at start that was lost or used. The server listens on a Unix socket in its data folder,
// readable and writable by its own user only (0600 in a 0700 folder): whoever can reach it can read the
// data folder (the master key, the database) anyway, so the file's permission is the authentication.
// Not a route: nothing on the network can ask for a link (docs/decisions/0313).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AppDeps } from "./kernel/context.ts";
import { issueConsoleSignIn } from "./services/sign-ins/console-sign-in.ts";
import { internalContext } from "./deps.ts";
import { AppError } from "./errors.ts";
import { updateWorkspaceSettingsAsOperator } from "./services/workspaces/workspace-settings.ts";

export const ADMIN_SOCKET_NAME = "admin.sock";

export function adminSocketPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), ADMIN_SOCKET_NAME);
}

export interface AdminSocket {
  path: string;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

const readBody = async (req: http.IncomingMessage): Promise<unknown> => {
  let text = "";
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 16_384) throw new AppError("validation-failed", "The command is too long.");
  }
  return text ? JSON.parse(text) : {};
};

/**
 * `POST /workspace` `{slug, ...settings}`: the operator sets a workspace's name and limits within
 * the hard bounds, as an organization admin may (services/workspaces/workspace-settings.ts).
 */
async function workspaceCommand(deps: AppDeps, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { slug, ...settings } = (await readBody(req)) as { slug?: unknown };
  if (typeof slug !== "string") return json(res, 400, { error: "name the workspace: workspace <slug> --max-sessions N ..." });
  try {
    const view = await updateWorkspaceSettingsAsOperator(internalContext(deps, "admin-command"), slug, settings);
    json(res, 200, { slug: view.workspace.slug, name: view.workspace.name, limits: view.limits, effective: view.effective });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    json(res, err.status, { error: err.detail, ...err.extensions });
  }
}

/** Answers `POST /sign-in-link` and `POST /workspace` on the socket; anything else is 404. */
async function handle(deps: AppDeps, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === "POST" && req.url === "/workspace") return workspaceCommand(deps, req, res);
  if (req.method !== "POST" || req.url !== "/sign-in-link") return json(res, 404, { error: "POST /sign-in-link and POST /workspace are the commands" });
  if (deps.dashboard.mailer.kind === "smtp") {
    return json(res, 409, { error: "Mail is configured on this server: ask for a sign-in link on the sign-in page, it is mailed." });
  }
  const signIn = await issueConsoleSignIn(deps);
  if (!signIn) return json(res, 409, { error: "The local administrator may not sign in (removed from every workspace)." });
  deps.log.info({ email: signIn.email, expiresAt: signIn.expiresAt }, "a one-time sign-in link was handed to the admin command (admin socket)");
  json(res, 200, { email: signIn.email, link: signIn.link, expires_at: signIn.expiresAt.toISOString() });
}

/** Listens on `<data folder>/admin.sock`; a socket left by a server that died is replaced. Null when it cannot listen (warned). */
export async function openAdminSocket(deps: AppDeps, dataDir: string): Promise<AdminSocket | null> {
  const file = adminSocketPath(dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.rmSync(file, { force: true });
  const server = http.createServer((req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      deps.log.error({ err }, "the admin command failed");
      if (!res.headersSent) json(res, 500, { error: "The server could not do it; see its log." });
      else res.destroy();
    });
  });
  // Created 0600 from the start: no moment when another user could connect.
  const mask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(file, () => resolve());
    });
  } catch (err) {
    deps.log.warn({ err, file }, "cannot listen on the admin socket: `npm run sign-in-link` will not reach this server");
    return null;
  } finally {
    process.umask(mask);
  }
  server.unref();
  return {
    path: file,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(file, { force: true });
      }),
  };
}
