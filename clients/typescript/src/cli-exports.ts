import { writeFile } from "node:fs/promises";
import path from "node:path";
import { UsageError, type Command } from "./cli-command.ts";

/** `vessel sessions bundle <id> -o <file.zip>` and `vessel sessions har <id> [-o <file.har>]` (cli.ts's command table holds them). */
export const exportCommands: Record<string, Command> = {
  "sessions bundle": {
    usage: "vessel sessions bundle <id> -o <file.zip> [--wait <s>]",
    summary:
      "Save a session's evidence bundle (zip: session.json, events.json, logs.ndjson, session.har, recording.mp4), waiting while its video is written (default 120 s).",
    args: ["id"],
    options: { output: { type: "string", short: "o" }, wait: { type: "string" } },
    async run({ vessel, args, values, io, json }) {
      if (typeof values.output !== "string") throw new UsageError("-o <file> is required");
      const wait = values.wait === undefined ? undefined : Number(values.wait);
      if (wait !== undefined && (!Number.isFinite(wait) || wait < 0)) throw new UsageError("--wait must be a number of seconds");
      const file = path.resolve(values.output);
      const bytes = await vessel.sessions.bundle(args[0]!, { to: file, ...(wait !== undefined ? { waitSeconds: wait } : {}) });
      io.out(json ? JSON.stringify({ file, bytes }) : `${file} (${bytes} bytes)`);
    },
  },
  "sessions har": {
    usage: "vessel sessions har <id> [-o <file.har>]",
    summary: "A session's network log as HAR 1.2: to the file, else on stdout.",
    args: ["id"],
    options: { output: { type: "string", short: "o" } },
    async run({ vessel, args, values, io, json }) {
      const har = await vessel.sessions.har(args[0]!);
      const text = JSON.stringify(har, null, 2);
      if (typeof values.output !== "string") return io.out(text);
      const file = path.resolve(values.output);
      await writeFile(file, `${text}\n`);
      const entries = har.log.entries.length;
      io.out(json ? JSON.stringify({ file, entries }) : `${file} (${entries} requests)`);
    },
  },
};
