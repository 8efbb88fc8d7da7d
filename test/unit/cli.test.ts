import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exitCodes, runCli } from "@vessel/client/cli";
import { formatSize } from "../../clients/typescript/src/cli-profiles.ts";
import { clientVersion } from "../../clients/typescript/src/version.ts";

/** The command line's own words (issue 25): no server is needed for any of these. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  // A port nothing listens on: a command that reached the network would fail with an API error, not a usage one.
  const code = await runCli(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    interactive: false,
    env: { VESSEL_API_KEY: "vs_x.y", VESSEL_BASE_URL: "http://127.0.0.1:9" },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("the vessel command line's messages", () => {
  it("--version prints the package's version", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../clients/typescript/package.json"), "utf8")) as { version: string };
    expect(clientVersion).toBe(pkg.version);
    for (const flag of ["--version", "-V"]) expect(await cli(flag)).toEqual({ code: exitCodes.ok, out: `vessel ${pkg.version}`, err: "" });
  });

  it("an unknown flag gets one line of ours and a usage hint, exit 2, never node's parser text", async () => {
    const r = await cli("sessions", "list", "--bogus");
    expect(r.code).toBe(exitCodes.usage);
    expect(r.err.split("\n")[0]).toBe("vessel sessions list: unknown option --bogus");
    expect(r.err).toContain('Run "vessel sessions list --help"');
    expect(r.err).not.toMatch(/positional argument|place it at the end/);
    const missing = await cli("sessions", "list", "--limit");
    expect(missing.code).toBe(exitCodes.usage);
    expect(missing.err.split("\n")[0]).toBe("vessel sessions list: option --limit needs a value");
    const before = await cli("--bogus");
    expect(before).toMatchObject({ code: exitCodes.usage, out: "" });
    expect(before.err).toBe('vessel: unknown option --bogus\nRun "vessel --help" for the commands.');
    expect((await cli("nonsense")).err.split("\n")[0]).toBe('vessel: unknown command "nonsense"');
  });

  it("sessions --help prints the sessions commands only", async () => {
    const r = await cli("sessions", "--help");
    expect(r.code).toBe(exitCodes.ok);
    expect(r.out).toMatch(/^vessel sessions — commands:/);
    expect(r.out).toContain("vessel sessions list");
    expect(r.out).not.toContain("vessel profiles list");
    const bare = await cli("sessions");
    expect(bare.code).toBe(exitCodes.usage);
    expect(bare.err).toContain("vessel sessions list");
    expect((await cli("--help")).out).toContain("vessel profiles list");
  });

  it("sessions list --limit 0 is refused, before any call", async () => {
    for (const limit of ["0", "1.5", "x"]) {
      const r = await cli("sessions", "list", "--limit", limit);
      expect(r.code).toBe(exitCodes.usage);
      expect(r.err.split("\n")[0]).toBe("vessel sessions list: --limit must be a whole number of at least 1");
    }
  });

  it("profile sizes read right: 335 B, not 1 KiB", () => {
    expect(formatSize(335)).toBe("335 B");
    expect(formatSize(1023)).toBe("1023 B");
    expect(formatSize(1024)).toBe("1 KiB");
    expect(formatSize(1536)).toBe("1.5 KiB");
    expect(formatSize(5 * 1024 * 1024)).toBe("5 MiB");
  });
});
