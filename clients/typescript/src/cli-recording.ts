import path from "node:path";
import type { Vessel } from "./index.ts";

/** `vessel sessions recording <id> -o <file>` (cli.ts's command table holds it). */
export const recordingCommand = {
  usage: "vessel sessions recording <id> -o <file.mp4> [--wait <s>]",
  summary: "Save a session's recording (MP4) once it is ready, waiting while it is being made (default 120 s).",
  args: ["id"],
  options: { output: { type: "string", short: "o" }, wait: { type: "string" } } as const,
  async run({
    vessel,
    args,
    values,
    io,
    json,
  }: {
    vessel: Vessel;
    args: string[];
    values: Record<string, unknown>;
    io: { out(text: string): void };
    json: boolean;
  }) {
    if (typeof values.output !== "string") throw new RecordingUsageError("-o <file> is required");
    const wait = values.wait === undefined ? undefined : Number(values.wait);
    if (wait !== undefined && (!Number.isFinite(wait) || wait < 0)) throw new RecordingUsageError("--wait must be a number of seconds");
    const file = path.resolve(values.output);
    const bytes = await vessel.sessions.downloadRecording(args[0]!, { to: file, ...(wait !== undefined ? { waitSeconds: wait } : {}) });
    io.out(json ? JSON.stringify({ file, bytes }) : `${file} (${bytes} bytes)`);
  },
};

/** A usage mistake: coded like node's parseArgs errors, which cli.ts answers with the usage and exit code 2. */
class RecordingUsageError extends Error {
  readonly code = "ERR_PARSE_ARGS_INVALID_OPTION_VALUE";
}
