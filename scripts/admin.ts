// The server-side admin command: `npm run admin -- <command>` on the machine the server runs on.
//   sign-in-link   a fresh one-time sign-in link for the local administrator (`npm run sign-in-link`)
//   workspace <slug> [--name T] [--max-sessions N] [--max-session-seconds N] [--queue-weight N]
//                    [--rate-limit-per-minute N]   set a workspace's name and limits within the hard
//                    bounds, as an organization admin may (`default` puts a limit back to the deployment's)
// It asks the running server over its admin socket (src/admin-socket.ts) in the data folder
// (VESSEL_DATA_DIR, `.data` by default), so it works while the server holds the database.
import { parseArgs } from "node:util";
import { adminSocketPath } from "../src/admin-socket.ts";
// The client's `vessel admin` speaks to the same socket: one way to ask it.
import { askAdminSocket } from "../clients/typescript/src/cli-admin.ts";

const usage =
  "usage: npm run admin -- sign-in-link   (or: npm run sign-in-link)\n" +
  "       npm run admin -- workspace <slug> [--name T] [--max-sessions N|default] [--max-session-seconds N|default]\n" +
  "                                         [--queue-weight N|default] [--rate-limit-per-minute N|default]";

const limitOptions = {
  "max-sessions": "max_sessions",
  "max-session-seconds": "max_session_seconds",
  "queue-weight": "queue_weight",
  "rate-limit-per-minute": "rate_limit_per_minute",
} as const;

/** `workspace <slug> --queue-weight 4 ...` → the socket's body; null when the arguments are wrong. */
function workspaceBody(args: string[]): Record<string, unknown> | null {
  const options = Object.fromEntries([["name", { type: "string" }], ...Object.keys(limitOptions).map((o) => [o, { type: "string" }])]);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch {
    return null;
  }
  const [slug] = parsed.positionals;
  if (parsed.positionals.length !== 1 || !slug) return null;
  const body: Record<string, unknown> = { slug };
  if (typeof parsed.values.name === "string") body.name = parsed.values.name;
  for (const [option, field] of Object.entries(limitOptions)) {
    const value = parsed.values[option];
    // Not a number is sent as is: the server's answer names the field and what it must be.
    if (typeof value === "string") body[field] = value === "default" ? null : /^\d+$/.test(value) ? Number(value) : value;
  }
  return body;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const body = command === "workspace" ? workspaceBody(rest) : undefined;
  if ((command !== "sign-in-link" && command !== "workspace") || body === null) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const socketPath = adminSocketPath(process.env.VESSEL_DATA_DIR || ".data");
  let answer: Awaited<ReturnType<typeof askAdminSocket>>;
  try {
    answer = await askAdminSocket(socketPath, command === "workspace" ? "/workspace" : "/sign-in-link", body);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" || code === "ECONNREFUSED" ? "is the server running (npm start), with the same VESSEL_DATA_DIR?" : (err as Error).message;
    process.stderr.write(`vessel admin: no server answered on ${socketPath}: ${why}\n`);
    return 1;
  }
  if (answer.status !== 200) {
    process.stderr.write(`vessel admin: ${String(answer.body.error ?? `the server answered ${answer.status}`)}\n`);
    return 1;
  }
  if (command === "workspace") {
    process.stdout.write(`${JSON.stringify(answer.body, null, 2)}\n`);
    return 0;
  }
  const minutes = Math.round((Date.parse(String(answer.body.expires_at)) - Date.now()) / 60_000);
  process.stderr.write(`Sign in as ${String(answer.body.email)} with this one-time link (it works once, within ${minutes} minutes):\n`);
  // The link alone on stdout: `npm run -s sign-in-link | xclip` takes just it.
  process.stdout.write(`${String(answer.body.link)}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
