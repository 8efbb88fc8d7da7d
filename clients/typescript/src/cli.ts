import { parseArgs, type ParseArgsConfig } from "node:util";
import { TimeoutError, Vessel, VesselApiError, VesselError } from "./index.ts";
import { logsCommand } from "./cli-logs.ts";
import { recordingCommand } from "./cli-recording.ts";
import { exportCommands } from "./cli-exports.ts";
import { extensionCommands } from "./cli-browser.ts";
import { UsageError, type Command, type Io } from "./cli-command.ts";
import { sessionCommands } from "./cli-sessions.ts";
import { mcpCommand } from "./mcp-bridge.ts";
import { profileCommands } from "./cli-profiles.ts";
import { credentialCommands } from "./cli-credentials.ts";
import { exitCodes, groupHelp, help as helpOf, parseErrorLine } from "./cli-help.ts";
import { clientVersion } from "./version.ts";
import { runAdmin } from "./cli-admin.ts";

/** Exit codes: scripts can tell a typo from a refusal from a wait that ran out. */
export { exitCodes };

const globalOptions = {
  "api-key": { type: "string" },
  "base-url": { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} satisfies ParseArgsConfig["options"];

const commands: Record<string, Command> = { ...sessionCommands };

Object.assign(commands, { "sessions logs": logsCommand, "sessions recording": recordingCommand, mcp: mcpCommand }, extensionCommands);

Object.assign(commands, profileCommands, exportCommands, credentialCommands());

const help = (): string => helpOf(commands);

/** Runs one command line; returns the exit code (never exits the process itself, so tests can call it). */
export async function runCli(argv: string[], io: Io): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-V") {
    io.out(`vessel ${clientVersion}`);
    return exitCodes.ok;
  }
  // On the server's own machine, with no API key (cli-admin.ts).
  if (argv[0] === "admin") return runAdmin(argv.slice(1), io);
  // Two-word commands ("sessions list"), else one word ("mcp").
  const name = commands[argv.slice(0, 2).join(" ")] ? argv.slice(0, 2).join(" ") : (argv[0] ?? "");
  const command = commands[name];
  if (!command) {
    const wantsHelp = argv.length === 0 || argv.includes("--help") || argv.includes("-h");
    // `vessel sessions --help` (or a bare `vessel sessions`): that group's commands.
    const group = argv[0] && !argv[0].startsWith("-") ? groupHelp(commands, argv[0]) : null;
    if (group) {
      (wantsHelp ? io.out : io.err)(
        wantsHelp ? group : `${argv[1] ? `unknown command "${argv.slice(0, 2).join(" ")}"` : `"${argv[0]}" needs a command`}\n\n${group}`,
      );
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
    const { values, positionals } = parseArgs({
      args: argv.slice(name.split(" ").length),
      options: { ...globalOptions, ...command.options },
      allowPositionals: true,
      strict: true,
    });
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
