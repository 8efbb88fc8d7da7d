import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { TimeoutError, Vessel, VesselApiError, VesselError, type Session } from "./index.ts";
import { logsCommand } from "./cli-logs.ts";
import { recordingCommand } from "./cli-recording.ts";
import { browserFlags, browserOptionsOf, browserUsage, extensionCommands } from "./cli-browser.ts";
import { mcpCommand } from "./mcp-bridge.ts";
import { profileCommands } from "./cli-profiles.ts";
import { exitCodes, groupHelp, help as helpOf, parseErrorLine } from "./cli-help.ts";
import { clientVersion } from "./version.ts";

/** Exit codes: scripts can tell a typo from a refusal from a wait that ran out. */
export { exitCodes };

class UsageError extends Error {}

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (the spinner shows only there). */
  interactive: boolean;
  env: Record<string, string | undefined>;
}

const globalOptions = {
  "api-key": { type: "string" },
  "base-url": { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} satisfies ParseArgsConfig["options"];

interface Command {
  usage: string;
  summary: string;
  options?: ParseArgsConfig["options"];
  args?: string[];
  run(ctx: { vessel: Vessel; values: Record<string, unknown>; args: string[]; io: Io; json: boolean }): Promise<void>;
}

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
};

function sessionRows(sessions: Session[]): string {
  if (sessions.length === 0) return "No sessions.";
  return table([
    ["ID", "STATUS", "REGION", "CREATED", "ENDED", "REASON"],
    ...sessions.map((s) => [s.id, s.status, s.region, s.created_at, s.ended_at ?? "-", s.end_reason ?? "-"]),
  ]);
}

function sessionDetail(s: Session): string {
  const lines: Array<[string, string | null | undefined]> = [
    ["id", s.id], ["status", s.status], ["end reason", s.end_reason], ["region", s.region], ["created", s.created_at],
    ["expires", s.expires_at], ["ended", s.ended_at], ["profile", s.profile_id],
    ["live view", s.live_view.interactive ? "interactive" : "view only"], ["connect_url", s.connect_url], ["live_view_url", s.live_view_url],
  ];
  return lines.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k.padEnd(14)}${v}`).join("\n");
}

/** A spinner on stderr while something is awaited (terminals only, so logs stay clean). */
async function spinning<T>(io: Io, label: string, work: Promise<T>): Promise<T> {
  if (!io.interactive) return work;
  const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
  let i = 0;
  const timer = setInterval(() => io.err(`\r${frames[i++ % frames.length]} ${label}`), 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    io.err("\r\x1b[K");
  }
}

/** `--metadata team=qa --metadata run=42` as an object; a pair without `=` is a usage error. */
function metadataOf(pairs: unknown): Record<string, string> | undefined {
  if (!Array.isArray(pairs) || pairs.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs as string[]) {
    const at = pair.indexOf("=");
    if (at < 1) throw new UsageError(`--metadata takes key=value, not "${pair}"`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

const print = (io: Io, json: boolean, value: unknown, human: () => string) => io.out(json ? JSON.stringify(value, null, 2) : human());

const commands: Record<string, Command> = {
  "sessions list": {
    usage: "vessel sessions list [--status <status>] [--metadata <key=value>]… [--limit <n>]",
    summary: "List the workspace's sessions (all pages), oldest first; --metadata keeps those with that label (repeatable: all must match).",
    options: { status: { type: "string" }, limit: { type: "string" }, metadata: { type: "string", multiple: true } },
    async run({ vessel, values, io, json }) {
      const limit = values.limit === undefined ? Infinity : Number(values.limit);
      // Zero rows on request is a typo more often than a wish: refused, like any other bad number.
      if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1)) throw new UsageError("--limit must be a whole number of at least 1");
      const status = values.status as Session["status"] | undefined;
      const sessions: Session[] = [];
      const metadata = metadataOf(values.metadata);
      for await (const s of vessel.sessions.list({ ...(status ? { status } : {}), ...(metadata ? { metadata } : {}) })) {
        sessions.push(s);
        if (sessions.length >= limit) break;
      }
      print(io, json, sessions, () => sessionRows(sessions));
    },
  },
  "sessions create": {
    usage: `vessel sessions create --region <region> [--profile <id>] [--metadata <key=value>]… [--recording] ${browserUsage} [--start-url <url>] [--interactive] [--instructions <text>] [--timeout <s>] [--wait-for-done] [--done-timeout <s>]`,
    summary: "Start a session; with --wait-for-done, wait until a person clicks Done in its live view.",
    options: {
      region: { type: "string" }, profile: { type: "string" }, interactive: { type: "boolean", default: false }, recording: { type: "boolean", default: false }, metadata: { type: "string", multiple: true },
      instructions: { type: "string" }, timeout: { type: "string" }, "start-url": { type: "string" }, "wait-for-done": { type: "boolean", default: false },
      "done-timeout": { type: "string" }, ...browserFlags,
    },
    async run({ vessel, values, io, json }) {
      if (typeof values.region !== "string") throw new UsageError("--region is required");
      const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
      if (timeout !== undefined && !Number.isInteger(timeout)) throw new UsageError("--timeout must be a whole number of seconds");
      const session = await spinning(io, "starting a session", vessel.sessions.create({
        region: values.region,
        ...(typeof values.profile === "string" ? { profileId: values.profile } : {}),
        ...(values.recording ? { recording: true } : {}),
        ...(typeof values["start-url"] === "string" ? { startUrl: values["start-url"] } : {}),
        ...(metadataOf(values.metadata) ? { metadata: metadataOf(values.metadata)! } : {}), ...browserOptionsOf(values),
        ...(values.interactive || values.instructions ? { liveView: { interactive: Boolean(values.interactive), ...(typeof values.instructions === "string" ? { instructions: values.instructions } : {}) } } : {}),
        ...(timeout ? { timeoutSeconds: timeout } : {}),
      }));
      if (!values["wait-for-done"]) return print(io, json, session, () => sessionDetail(session));
      if (!json) io.out(`${sessionDetail(session)}\n\nWaiting for someone to click Done in the live view…`);
      const doneTimeout = Number(values["done-timeout"] ?? 600);
      if (!Number.isInteger(doneTimeout) || doneTimeout < 1) throw new UsageError("--done-timeout must be a whole number of seconds");
      const done = await spinning(io, "waiting for Done", vessel.sessions.waitForLiveViewDone(session.id, { timeoutSeconds: doneTimeout })).catch((err: unknown) => {
        if (!(err instanceof TimeoutError)) throw err;
        throw new TimeoutError(
          `${err.message} The session ${session.id} is still running: wait again with "vessel sessions events ${session.id} --type live_view.done --wait 30", ` +
            `or end it with "vessel sessions release ${session.id}".`,
        );
      });
      print(io, json, { session, done }, () => `Done clicked at ${done.created_at}.`);
    },
  },
  "sessions upload": {
    usage: "vessel sessions upload <id> <file>",
    summary: "Put a file into a running session; prints the path to give a file input (Puppeteer's uploadFile, Playwright's setInputFiles).",
    args: ["id", "file"],
    async run({ vessel, args, io, json }) {
      const file = path.resolve(args[1]!);
      const uploaded = await vessel.sessions.uploadFile(args[0]!, await readFile(file), path.basename(file));
      print(io, json, uploaded, () => `${uploaded.path}\n(${uploaded.size} bytes, sha256 ${uploaded.sha256})`);
    },
  },
  "sessions get": {
    usage: "vessel sessions get <id>",
    summary: "Show a session (with fresh addresses while it runs).",
    args: ["id"],
    async run({ vessel, args, io, json }) {
      const s = await vessel.sessions.get(args[0]!);
      print(io, json, s, () => sessionDetail(s));
    },
  },
  "sessions release": {
    usage: "vessel sessions release <id>",
    summary: "End a session.",
    args: ["id"],
    async run({ vessel, args, io, json }) {
      await vessel.sessions.release(args[0]!);
      print(io, json, { id: args[0], released: true }, () => `Released ${args[0]}.`);
    },
  },
  "sessions keepalive": {
    usage: "vessel sessions keepalive <id>",
    summary: "New connect_url and live_view_url; resets the idle countdown.",
    args: ["id"],
    async run({ vessel, args, io, json }) {
      const s = await vessel.sessions.keepalive(args[0]!);
      print(io, json, s, () => sessionDetail(s));
    },
  },
  "sessions events": {
    usage: "vessel sessions events <id> [--type <t1,t2>] [--wait <s>]",
    summary: "A session's events, oldest first.",
    args: ["id"],
    options: { type: { type: "string" }, wait: { type: "string" } },
    async run({ vessel, args, values, io, json }) {
      const wait = values.wait === undefined ? undefined : Number(values.wait);
      const page = await spinning(io, "reading events", vessel.sessions.events(args[0]!, {
        ...(typeof values.type === "string" ? { types: values.type.split(",") } : {}),
        ...(wait !== undefined ? { wait } : {}),
      }));
      print(io, json, page.items, () =>
        page.items.length === 0
          ? "No events."
          : table([["ID", "TYPE", "AT", "DATA"], ...page.items.map((e) => [e.id, e.type, e.created_at, JSON.stringify(e.data)])]),
      );
    },
  },
};

Object.assign(commands, { "sessions logs": logsCommand, "sessions recording": recordingCommand, mcp: mcpCommand }, extensionCommands);

Object.assign(commands, profileCommands);

const help = (): string => helpOf(commands);



/** Runs one command line; returns the exit code (never exits the process itself, so tests can call it). */
export async function runCli(argv: string[], io: Io): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-V") {
    io.out(`vessel ${clientVersion}`);
    return exitCodes.ok;
  }
  // Two-word commands ("sessions list"), else one word ("mcp").
  const name = commands[argv.slice(0, 2).join(" ")] ? argv.slice(0, 2).join(" ") : (argv[0] ?? "");
  const command = commands[name];
  if (!command) {
    const wantsHelp = argv.length === 0 || argv.includes("--help") || argv.includes("-h");
    // `vessel sessions --help` (or a bare `vessel sessions`): that group's commands.
    const group = argv[0] && !argv[0].startsWith("-") ? groupHelp(commands, argv[0]) : null;
    if (group) {
      (wantsHelp ? io.out : io.err)(wantsHelp ? group : `${argv[1] ? `unknown command "${argv.slice(0, 2).join(" ")}"` : `"${argv[0]}" needs a command`}\n\n${group}`);
      return wantsHelp ? exitCodes.ok : exitCodes.usage;
    }
    if (wantsHelp) {
      io.out(help());
      return exitCodes.ok;
    }
    const what = name.startsWith("-") ? `unknown option ${name}` : `unknown command "${name}"`;
    io.err(`vessel: ${what}\nRun "vessel --help" for the commands.`);
    return exitCodes.usage;
  }
  try {
    const { values, positionals } = parseArgs({ args: argv.slice(name.split(" ").length), options: { ...globalOptions, ...command.options }, allowPositionals: true, strict: true });
    if (values.help) {
      io.out(`${command.usage}\n\n${command.summary}`);
      return exitCodes.ok;
    }
    const expected = command.args ?? [];
    if (positionals.length !== expected.length) throw new UsageError(`expected ${expected.map((a) => `<${a}>`).join(" ") || "no arguments"}`);
    const apiKey = (values["api-key"] as string | undefined) ?? io.env.VESSEL_API_KEY;
    if (!apiKey) throw new UsageError("no API key: pass --api-key or set VESSEL_API_KEY");
    const vessel = new Vessel({ apiKey, baseUrl: (values["base-url"] as string | undefined) ?? io.env.VESSEL_BASE_URL });
    await command.run({ vessel, values, args: positionals, io, json: Boolean(values.json) });
    return exitCodes.ok;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      const line = err instanceof UsageError ? err.message : parseErrorLine(err as Error & { code?: string });
      io.err(`vessel ${name}: ${line}\nUsage: ${command.usage}\nRun "vessel ${name} --help" for its options.`);
      return exitCodes.usage;
    }
    if (err instanceof TimeoutError) {
      io.err(err.message);
      return exitCodes.timeout;
    }
    if (err instanceof VesselApiError) {
      io.err(`${err.name}: ${err.problem.detail ?? err.problem.title} (${err.status} ${err.slug})`);
      return exitCodes.apiError;
    }
    if (err instanceof VesselError) {
      io.err(err.message);
      return exitCodes.apiError;
    }
    throw err;
  }
}

export function processIo(): Io {
  return {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(t.startsWith("\r") ? t : `${t}\n`),
    interactive: Boolean(process.stderr.isTTY),
    env: process.env,
  };
}
