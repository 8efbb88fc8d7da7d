// What every `vessel` command is given and may throw, apart from cli.ts (which parses the line and
// runs one) so that the command tables in cli-*.ts can use them without importing cli.ts back.
import type { Vessel } from "./index.ts";

/** A mistake in the command line: cli.ts answers it with the command's usage and exit code 2. */
export class UsageError extends Error {}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (the spinner shows only there). */
  interactive: boolean;
  env: Record<string, string | undefined>;
}

/**
 * A command's options as node:util's parseArgs takes them, spelled out here: these types ship in the
 * package's .d.ts, and a consumer without @types/node must be able to check them.
 */
export type CommandOptions = Record<
  string,
  { type: "string" | "boolean"; short?: string; multiple?: boolean; default?: string | boolean | string[] | boolean[] }
>;

export interface Command {
  usage: string;
  summary: string;
  options?: CommandOptions;
  args?: string[];
  run(ctx: { vessel: Vessel; values: Record<string, unknown>; args: string[]; io: Io; json: boolean }): Promise<void>;
}
