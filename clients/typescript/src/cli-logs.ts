import type { Vessel } from "./index.ts";
import type { SessionLogEntry } from "./session-logs.ts";

/** `vessel sessions logs <id>` (cli.ts's command table holds it). */
export const logsCommand = {
  usage: "vessel sessions logs <id> [--follow] [--type <console,network,page_error,navigation,cdp>]",
  summary: "A session's logs, oldest first (--json: one entry per line); --follow reads on until the session has ended.",
  args: ["id"],
  options: { follow: { type: "boolean", default: false }, type: { type: "string" } } as const,
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
    const types = typeof values.type === "string" ? values.type.split(",") : undefined;
    for await (const entry of vessel.sessions.logs(args[0]!, { follow: Boolean(values.follow), ...(types ? { types } : {}) })) {
      io.out(json ? JSON.stringify(entry) : logLine(entry));
    }
  },
};

/** A URL as a person reads it: percent-encoded text decoded, unless that would show control or direction characters (`--json` keeps it exact). */
function readable(url: unknown): string {
  const text = String(url);
  try {
    const decoded = decodeURI(text);
    return /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(decoded) ? text : decoded;
  } catch {
    return text;
  }
}

/** One log entry as one line of `vessel sessions logs` (without --json): seq, time, type and what matters of it. */
export function logLine(e: SessionLogEntry): string {
  const f = e as Record<string, unknown>;
  const where = f.source_url ? ` (${String(f.source_url)}${f.line ? `:${String(f.line)}` : ""})` : "";
  const ms = typeof f.duration_ms === "number" ? ` ${f.duration_ms} ms` : "";
  let what: string;
  switch (e.type) {
    case "console":
      what = `[${String(f.level)}] ${String(f.text)}${where}`;
      break;
    case "page_error":
      what = `${String(f.message)}${where}`;
      break;
    case "navigation":
      what = `${readable(f.url)}${f.main_frame ? "" : " (frame)"}${f.same_document ? " (same document)" : ""}`;
      break;
    case "network":
      what = `${String(f.method)} ${f.failure ? `failed: ${String(f.failure)}` : String(f.status)} ${readable(f.url)}${ms}`;
      break;
    case "cdp":
      what = `${String(f.method)}${f.refused ? " refused by the policy" : ms}`;
      break;
    case "logs.truncated":
      what = `the log reached its bounds (${String(f.reason)}): nothing more was kept`;
      break;
    default:
      what = JSON.stringify(f);
  }
  return `${String(e.seq).padStart(5)}  ${e.at}  ${e.type.padEnd(10)}  ${what.replace(/\s*\n\s*/g, " ")}`;
}
