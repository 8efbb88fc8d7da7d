#!/usr/bin/env node
// The `vessel` command line: the package's bin (`npx vessel …`), and `npm run vessel` in the repository.
import { processIo, runCli } from "./cli.ts";

// No top-level await: this file is also compiled to CommonJS with the rest of the package.
void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
