#!/usr/bin/env node
// The `vessel` command line. The project runs TypeScript directly (tsx), so this loads its loader first.
import { register } from "tsx/esm/api";

register();
const { runCli, processIo } = await import("../src/client/cli.ts");
process.exitCode = await runCli(process.argv.slice(2), processIo());
