import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const noFile = "/nonexistent";

/** The one problem the configuration reports for `env`. */
function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env, noFile);
  } catch (err) {
    if (err instanceof ConfigError && err.problems.length === 1) return err.problems[0]!;
    throw err;
  }
  throw new Error("expected the configuration to be refused");
}

describe("sizes in the configuration", () => {
  it("reads whole bytes and size strings, 1024-based", () => {
    const c = loadConfig(
      { VESSEL_UPLOAD_MAX_BYTES: "64mb", VESSEL_DOWNLOAD_MAX_BYTES: "4194304", VESSEL_PROFILE_MAX_BYTES: "1.5 MB", VESSEL_LOGS_MAX_BYTES: "256kb" },
      noFile,
    );
    expect(c.browser.uploadMaxBytes).toBe(64 * 1024 * 1024);
    expect(c.browser.downloadMaxBytes).toBe(4 * 1024 * 1024);
    expect(c.profiles.maxBytes).toBe(1.5 * 1024 * 1024);
    expect(c.logs.maxBytes).toBe(256 * 1024);
  });

  it("refuses what is not a size, and keeps each setting's bounds", () => {
    for (const bad of ["12abc", "1.5", "1.5b", "-1kb", "mb", "10 bytes"]) {
      expect(problemOf({ VESSEL_DOWNLOAD_MAX_BYTES: bad }), bad).toMatch(/^VESSEL_DOWNLOAD_MAX_BYTES: must be/);
    }
    expect(problemOf({ VESSEL_UPLOAD_MAX_BYTES: "5gb" })).toMatch(/must be at most 4294967296/);
    expect(problemOf({ VESSEL_PROFILE_MAX_BYTES: "1000b" })).toMatch(/must be at least 1024/);
  });
});
