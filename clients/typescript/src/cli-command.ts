// What every `vessel` command is given and may throw, apart from cli.ts (which parses the line and
// runs one) so that the command tables in cli-*.ts can use them without importing cli.ts back.
import type { ParseArgsConfig } from "node:util";
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

export interface Command {
  usage: string;
  summary: string;
  options?: ParseArgsConfig["options"];
  args?: string[];
  run(ctx: { vessel: Vessel; values: Record<string, unknown>; args: string[]; io: Io; json: boolean }): Promise<void>;
}
