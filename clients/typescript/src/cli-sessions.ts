// The `vessel sessions …` commands (list, create, upload, get, release, keepalive, events) and how
// they show sessions to people: cli.ts's command table holds them, as it does cli-logs.ts's and the rest.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { TimeoutError, type Session } from "./index.ts";
import { browserFlags, browserOptionsOf, browserUsage } from "./cli-browser.ts";
import { UsageError, type Command, type Io } from "./cli-command.ts";

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
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
    ["id", s.id],
    ["status", s.status],
    ["end reason", s.end_reason],
    ["region", s.region],
    ["created", s.created_at],
    ["expires", s.expires_at],
    ["ended", s.ended_at],
    ["profile", s.profile_id],
    ["live view", s.live_view.interactive ? "interactive" : "view only"],
    ["connect_url", s.connect_url],
    ["live_view_url", s.live_view_url],
  ];
  return lines
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k.padEnd(14)}${v}`)
    .join("\n");
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

export const sessionCommands: Record<string, Command> = {
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
    usage: `vessel sessions create --region <region> [--profile <id>] [--metadata <key=value>]… [--recording] ${browserUsage} [--start-url <url>] [--interactive] [--instructions <text>] [--timeout <s>] [--queue-timeout <s>] [--priority <n>] [--wait-for-done] [--done-timeout <s>]`,
    summary: "Start a session; with --wait-for-done, wait until a person clicks Done in its live view.",
    options: {
      region: { type: "string" },
      profile: { type: "string" },
      interactive: { type: "boolean", default: false },
      recording: { type: "boolean", default: false },
      metadata: { type: "string", multiple: true },
      instructions: { type: "string" },
      timeout: { type: "string" },
      "queue-timeout": { type: "string" },
      priority: { type: "string" },
      "start-url": { type: "string" },
      "wait-for-done": { type: "boolean", default: false },
      "done-timeout": { type: "string" },
      ...browserFlags,
    },
    async run({ vessel, values, io, json }) {
      if (typeof values.region !== "string") throw new UsageError("--region is required");
      const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
      if (timeout !== undefined && !Number.isInteger(timeout)) throw new UsageError("--timeout must be a whole number of seconds");
      // With no free browser, wait in the server's queue this long (the server bounds it: 0–3600).
      const queueTimeout = values["queue-timeout"] === undefined ? undefined : Number(values["queue-timeout"]);
      if (queueTimeout !== undefined && !Number.isInteger(queueTimeout)) throw new UsageError("--queue-timeout must be a whole number of seconds");
      const priority = values.priority === undefined ? undefined : Number(values.priority);
      if (priority !== undefined && !Number.isInteger(priority)) throw new UsageError("--priority must be a whole number (-10…10)");
      const session = await spinning(
        io,
        "starting a session",
        vessel.sessions.create({
          region: values.region,
          ...(typeof values.profile === "string" ? { profileId: values.profile } : {}),
          ...(values.recording ? { recording: true } : {}),
          ...(typeof values["start-url"] === "string" ? { startUrl: values["start-url"] } : {}),
          ...(metadataOf(values.metadata) ? { metadata: metadataOf(values.metadata)! } : {}),
          ...browserOptionsOf(values),
          ...(values.interactive || values.instructions
            ? {
                liveView: {
                  interactive: Boolean(values.interactive),
                  ...(typeof values.instructions === "string" ? { instructions: values.instructions } : {}),
                },
              }
            : {}),
          ...(timeout ? { timeoutSeconds: timeout } : {}),
          ...(queueTimeout ? { queueTimeout } : {}),
          ...(priority !== undefined ? { priority } : {}),
        }),
      );
      if (!values["wait-for-done"]) return print(io, json, session, () => sessionDetail(session));
      if (!json) io.out(`${sessionDetail(session)}\n\nWaiting for someone to click Done in the live view…`);
      const doneTimeout = Number(values["done-timeout"] ?? 600);
      if (!Number.isInteger(doneTimeout) || doneTimeout < 1) throw new UsageError("--done-timeout must be a whole number of seconds");
      const done = await spinning(io, "waiting for Done", vessel.sessions.waitForLiveViewDone(session.id, { timeoutSeconds: doneTimeout })).catch(
        (err: unknown) => {
          if (!(err instanceof TimeoutError)) throw err;
          throw new TimeoutError(
            `${err.message} The session ${session.id} is still running: wait again with "vessel sessions events ${session.id} --type live_view.done --wait 30", ` +
              `or end it with "vessel sessions release ${session.id}".`,
          );
        },
      );
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
      const page = await spinning(
        io,
        "reading events",
        vessel.sessions.events(args[0]!, {
          ...(typeof values.type === "string" ? { types: values.type.split(",") } : {}),
          ...(wait !== undefined ? { wait } : {}),
        }),
      );
      print(io, json, page.items, () =>
        page.items.length === 0
          ? "No events."
          : table([["ID", "TYPE", "AT", "DATA"], ...page.items.map((e) => [e.id, e.type, e.created_at, JSON.stringify(e.data)])]),
      );
    },
  },
};
