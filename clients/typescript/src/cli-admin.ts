// `vessel admin sign-in-link`, run on the server's own machine: a fresh one-time sign-in link for the
// local administrator, asked of the running server over its admin socket (the server's
// src/admin-socket.ts: `<VESSEL_DATA_DIR or .data>/admin.sock`, its user's alone). No API key: the
// socket's file permission is the check. The same as the server's `npm run sign-in-link`.
import http from "node:http";
import path from "node:path";
import type { Io } from "./cli-command.ts";

export const adminUsage = "vessel admin sign-in-link   (on the server's machine, in its folder, while it runs)";

/** One request to the server's admin socket: its status and JSON answer. Also used by the server's `npm run admin`. */
export function askAdminSocket(socketPath: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: route, method: "POST" }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Exit code 0 with the link alone on stdout; 1 when no server answered or it refused; 2 for a wrong command. */
export async function runAdmin(argv: string[], io: Io): Promise<number> {
  if (argv[0] !== "sign-in-link" || argv.length > 1) {
    io.err(`Usage: ${adminUsage}`);
    return argv.includes("--help") || argv.includes("-h") ? 0 : 2;
  }
  const socketPath = path.join(path.resolve(io.env.VESSEL_DATA_DIR || ".data"), "admin.sock");
  let answer: Awaited<ReturnType<typeof askAdminSocket>>;
  try {
    answer = await askAdminSocket(socketPath, "/sign-in-link");
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === "ENOENT" || code === "ECONNREFUSED" ? "is the server running (npm start), with the same VESSEL_DATA_DIR?" : (err as Error).message;
    io.err(`vessel admin: no server answered on ${socketPath}: ${why}`);
    return 1;
  }
  if (answer.status !== 200) {
    io.err(`vessel admin: ${String(answer.body.error ?? `the server answered ${answer.status}`)}`);
    return 1;
  }
  io.err(`Sign in as ${String(answer.body.email)} with this one-time link (it works once, before ${String(answer.body.expires_at)}):`);
  io.out(String(answer.body.link));
  return 0;
}
