import { UsageError, type Command } from "./cli-command.ts";
import type { Credential } from "./index.ts";

/** Reads a secret: from the terminal without echoing it, or one line of stdin when it is not a terminal. Never from argv. */
export type SecretReader = (prompt: string) => Promise<string>;

/** The process's reader: a prompt that hides what is typed, or the next line of piped stdin. */
export function processSecretReader(): SecretReader {
  let lines: Promise<string[]> | undefined;
  let next = 0;
  return async (prompt) => {
    if (process.stdin.isTTY) return hiddenPrompt(prompt);
    lines ??= new Promise<string[]>((resolve, reject) => {
      let text = "";
      process.stdin.setEncoding("utf8");
      process.stdin.on("data", (c: string) => (text += c));
      process.stdin.on("end", () => resolve(text.split(/\r?\n/)));
      process.stdin.on("error", reject);
    });
    return (await lines)[next++] ?? "";
  };
}

function hiddenPrompt(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new UsageError("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

function credentialRows(list: Credential[]): string {
  if (list.length === 0) return "No credentials.";
  const rows = [
    ["ID", "NAME", "USERNAME", "TOTP", "ORIGINS", "LAST USED"],
    ...list.map((c) => [c.id, c.name, c.username_hint, c.has_totp ? "yes" : "no", c.origins.join(","), c.last_used_at ?? "never"]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** `vessel credentials …` (cli.ts's command table holds them). `read` is where secrets come from (tests pass their own). */
export function credentialCommands(read: SecretReader = processSecretReader()): Record<string, Command> {
  return {
    "credentials add": {
      usage: "vessel credentials add --name <name> --origin <https://login.example.com> [--origin …] --username <username> [--totp]",
      summary:
        "Store a login for the server to fill into sessions. The password (and, with --totp, the TOTP secret) is read from a prompt or stdin, never from the command line.",
      options: {
        name: { type: "string" },
        origin: { type: "string", multiple: true },
        username: { type: "string" },
        totp: { type: "boolean", default: false },
      },
      async run({ vessel, values, io, json }) {
        const name = values.name as string | undefined;
        const origins = (values.origin as string[] | undefined) ?? [];
        const username = values.username as string | undefined;
        if (!name || origins.length === 0 || !username) throw new UsageError("--name, --origin and --username are required");
        const password = await read("Password: ");
        if (password === "") throw new UsageError("no password was given (prompt or stdin)");
        const totp = values.totp === true ? await read("TOTP secret (base32): ") : undefined;
        if (totp === "") throw new UsageError("no TOTP secret was given (prompt or stdin)");
        const created = await vessel.credentials.create({ name, origins, username, password, ...(totp ? { totp_secret: totp } : {}) });
        io.out(json ? JSON.stringify(created, null, 2) : `Stored ${created.name} (${created.id}) for ${created.origins.join(", ")}.`);
      },
    },
    "credentials list": {
      usage: "vessel credentials list",
      summary: "List the workspace's credentials (never their secrets).",
      async run({ vessel, io, json }) {
        const list: Credential[] = [];
        for await (const c of vessel.credentials.list()) list.push(c);
        io.out(json ? JSON.stringify(list, null, 2) : credentialRows(list));
      },
    },
    "credentials delete": {
      usage: "vessel credentials delete <id>",
      summary: "Delete a credential (its encryption key is destroyed with it).",
      args: ["id"],
      async run({ vessel, args, io, json }) {
        await vessel.credentials.delete(args[0]!);
        io.out(json ? JSON.stringify({ id: args[0], deleted: true }, null, 2) : `Deleted ${args[0]}.`);
      },
    },
    "credentials fill": {
      usage: "vessel credentials fill <session-id> <credential-id> [--submit]",
      summary: "Fill a credential into the session's active tab (typed by the server).",
      args: ["session-id", "credential-id"],
      options: { submit: { type: "boolean", default: false } },
      async run({ vessel, args, values, io, json }) {
        const result = await vessel.credentials.fill(args[0]!, args[1]!, { submit: values.submit === true });
        io.out(json ? JSON.stringify(result, null, 2) : `Filled ${result.filled.join(", ") || "nothing"} on ${result.origin}.`);
      },
    },
  };
}
