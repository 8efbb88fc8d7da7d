/** What the command line says about itself: the help of everything, of a group, and its own one-line complaints. */

export interface CommandText {
  usage: string;
  summary: string;
}

export const exitCodes = { ok: 0, apiError: 1, usage: 2, timeout: 3 } as const;

const globalHelp = [
  "Options for every command:",
  "  --api-key <key>    default: VESSEL_API_KEY",
  "  --base-url <url>   default: VESSEL_BASE_URL, else http://localhost:8080",
  "  --json             machine-readable output",
  "  -h, --help         this help, or a command's",
  "  -V, --version      the version of this command line",
];

const exits = `Exit codes: ${exitCodes.ok} ok, ${exitCodes.apiError} the API refused or failed, ${exitCodes.usage} usage error, ${exitCodes.timeout} a wait ran out.`;

const listed = (commands: CommandText[]) => commands.map((c) => `  ${c.usage}\n      ${c.summary}`);

export function help(commands: Record<string, CommandText>): string {
  return [
    "vessel — the Vessel command line",
    "",
    "Commands:",
    ...listed(Object.values(commands)),
    "",
    "On the server's machine (no API key): vessel admin sign-in-link, a fresh one-time sign-in link for the local administrator",
    "",
    ...globalHelp,
    "",
    exits,
  ].join("\n");
}

/** The commands of one group (`vessel sessions --help`), or null when no command starts with that word. */
export function groupHelp(commands: Record<string, CommandText>, group: string): string | null {
  const members = Object.entries(commands)
    .filter(([name]) => name.startsWith(`${group} `))
    .map(([, c]) => c);
  if (members.length === 0) return null;
  return [`vessel ${group} — commands:`, ...listed(members), "", ...globalHelp, "", exits].join("\n");
}

/**
 * node:util's parseArgs errors name its own internals ("To specify a positional argument starting
 * with a '-', place it at the end…"); people get one line about what they typed instead.
 */
export function parseErrorLine(err: { code?: string; message: string }): string {
  const option = /'(-{1,2}[\w-]+)/.exec(err.message)?.[1];
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? ""}`.trim();
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return option ? `option ${option} ${/argument missing/.test(err.message) ? "needs a value" : "takes no value"}` : "an option has a wrong value";
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${/'([^']*)'/.exec(err.message)?.[1] ?? ""}`.trim();
    default:
      return err.message.split(".")[0] ?? err.message;
  }
}
