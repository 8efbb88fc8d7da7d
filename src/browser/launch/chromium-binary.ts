// What VESSEL_CHROMIUM_PATH names, made into the binary to launch. Distributions put a shell script
// where `which chromium` looks (Debian's /usr/bin/chromium reads /etc/chromium.d, which the jail does
// not show, then runs /usr/lib/chromium/chromium): launched as is, every session fails. The script is
// read, not run, and the Chromium binary it starts is taken instead; one we cannot follow is refused,
// naming the binary to use (docs/decisions/0311).
import fs from "node:fs";
import path from "node:path";
import { FULL_CHROMIUM, HEADLESS_SHELL, isExecutable } from "./command.ts";

export type ChromiumBinary = { ok: true; path: string; wrapper: string | null } | { ok: false; why: string };

/** A launcher script is small; anything larger is not one we read. */
const MAX_SCRIPT_BYTES = 64 * 1024;

/** The first bytes of a file: `#!` for a script, `\x7fELF` for a binary. */
function head(file: string, bytes: number): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, fs.readSync(fd, buf, 0, bytes, 0));
  } finally {
    fs.closeSync(fd);
  }
}

const isElf = (file: string) => isExecutable(file) && head(file, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));

/**
 * The script's text with its plain assignments (`LIBDIR=/usr/lib/$APPNAME`) substituted, in order,
 * so `exec $LIBDIR/$APPNAME` reads as the path it runs. Only literal values: nothing is evaluated.
 */
function expanded(script: string): string {
  const vars = new Map<string, string>();
  const sub = (text: string) => text.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (whole, name: string) => vars.get(name) ?? whole);
  const out: string[] = [];
  for (const line of script.split("\n")) {
    const assign = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=("?)([^"\s;`]*)\2\s*$/.exec(line);
    if (assign) vars.set(assign[1]!, sub(assign[3]!));
    out.push(sub(line));
  }
  return out.join("\n");
}

/** Chromium binaries a launcher script names: absolute paths to ELF executables called like a Chromium. */
function binariesNamedIn(script: string): string[] {
  const found = new Set<string>();
  for (const m of expanded(script).matchAll(/\/[A-Za-z0-9._/-]+/g)) {
    const candidate = m[0];
    if (/chrom/i.test(path.basename(candidate)) && isElf(candidate)) found.add(candidate);
  }
  return [...found];
}

/** The binary to use when the configured one cannot be: Debian's, where installed. */
function suggestion(): string {
  const known = [FULL_CHROMIUM, HEADLESS_SHELL].filter(isElf);
  return known.length > 0 ? known.join(" or ") : "the Chromium executable itself (for Debian's package: /usr/lib/chromium/chromium)";
}

/**
 * The binary VESSEL_CHROMIUM_PATH means. A missing or non-executable file is given back as is (the
 * pool reports it and falls back as before); a binary is kept; a launcher script is followed to the
 * one Chromium binary it names, or refused.
 */
export function resolveChromiumBinary(configured: string): ChromiumBinary {
  if (!isExecutable(configured)) return { ok: true, path: configured, wrapper: null };
  const real = fs.realpathSync(configured);
  if (isElf(real)) return { ok: true, path: configured, wrapper: null };
  const start = head(real, 2).toString("latin1");
  const refuse = (what: string): ChromiumBinary => ({
    ok: false,
    why: `${configured} is ${what}, not Chromium's binary: set it to the binary itself, ${suggestion()}`,
  });
  if (start !== "#!") return refuse("not an executable binary");
  if (fs.statSync(real).size > MAX_SCRIPT_BYTES) return refuse("a large script");
  const named = binariesNamedIn(fs.readFileSync(real, "utf8"));
  // One binary named: that is what the script runs. None, or several (which one?): not guessed.
  if (named.length !== 1) return refuse("a launcher script (whose Chromium could not be told)");
  return { ok: true, path: named[0]!, wrapper: configured };
}
