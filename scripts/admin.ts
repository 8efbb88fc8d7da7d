// The server-side admin command: `npm run admin -- <command>` on the machine the server runs on.
//   sign-in-link   a fresh one-time sign-in link for the local administrator (`npm run sign-in-link`)
// It asks the running server over its admin socket (src/admin-socket.ts) in the data folder
// (VESSEL_DATA_DIR, `.data` by default), so it works while the server holds the database.
import http from "node:http";
import { adminSocketPath } from "../src/admin-socket.ts";

const usage = "usage: npm run admin -- sign-in-link   (or: npm run sign-in-link)";

function ask(socketPath: string, route: string): Promise<{ status: number; body: Record<string, unknown> }> {
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
    req.end();
  });
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command !== "sign-in-link") {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const socketPath = adminSocketPath(process.env.VESSEL_DATA_DIR || ".data");
  let answer: Awaited<ReturnType<typeof ask>>;
  try {
    answer = await ask(socketPath, "/sign-in-link");
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
  const minutes = Math.round((Date.parse(String(answer.body.expires_at)) - Date.now()) / 60_000);
  process.stderr.write(`Sign in as ${String(answer.body.email)} with this one-time link (it works once, within ${minutes} minutes):\n`);
  // The link alone on stdout: `npm run -s sign-in-link | xclip` takes just it.
  process.stdout.write(`${String(answer.body.link)}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
