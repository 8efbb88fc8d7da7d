import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { settings } from "../../src/settings.ts";

const noFile = "/nonexistent";

function problemsOf(env: Record<string, string>, cwd = noFile): string[] {
  try {
    loadConfig(env, cwd);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected the configuration to be refused");
}

describe("configuration", () => {
  it("has working defaults for the embedded mode", () => {
    const c = loadConfig({}, noFile);
    expect(c.port).toBe(8080);
    expect(c.regions).toEqual(["us-east1"]);
    expect(c.publicBaseUrl).toBe("http://localhost:8080");
    expect(c.database.url).toBeUndefined();
    expect(c.redis.url).toBeUndefined();
    expect(c.dashboard.api.bootstrapAdminEmails).toEqual([]);
  });

  it("reads the environment, normalising lists, e-mails and the base URL", () => {
    const c = loadConfig(
      {
        PORT: "9090",
        VESSEL_REGIONS: "us-east1, eu-west1",
        VESSEL_PUBLIC_BASE_URL: "https://vessel.example.com/",
        VESSEL_BOOTSTRAP_ADMIN_EMAILS: "Ada@Example.com,bob@example.com",
        DATABASE_URL: "postgresql://u@db:5432/vessel",
        VESSEL_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
      },
      noFile,
    );
    expect(c.port).toBe(9090);
    expect(c.regions).toEqual(["us-east1", "eu-west1"]);
    expect(c.publicBaseUrl).toBe("https://vessel.example.com");
    expect(c.dashboard.api.bootstrapAdminEmails).toEqual(["ada@example.com", "bob@example.com"]);
    expect(c.database.url).toBe("postgresql://u@db:5432/vessel");
  });

  it("reads a config file, and the environment wins over it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-config-"));
    fs.writeFileSync(
      path.join(dir, "vessel.config.json"),
      JSON.stringify({ port: 7000, regions: ["eu-west1"], dashboard: { api: { bootstrapAdminEmails: ["Root@Example.com"] } } }),
    );
    const fromFile = loadConfig({}, dir);
    expect(fromFile.port).toBe(7000);
    expect(fromFile.regions).toEqual(["eu-west1"]);
    expect(fromFile.dashboard.api.bootstrapAdminEmails).toEqual(["root@example.com"]);
    expect(fromFile.publicBaseUrl).toBe("http://localhost:7000");
    expect(loadConfig({ PORT: "7001" }, dir).port).toBe(7001);
  });

  it("reports every problem at once, naming where each came from", () => {
    const problems = problemsOf({
      PORT: "abc",
      VESSEL_REGIONS: "us-east1,,EU",
      VESSEL_PUBLIC_BASE_URL: "ftp://example.com",
      VESSEL_BOOTSTRAP_ADMIN_EMAILS: "not-an-email",
      DATABASE_URL: "mysql://x",
      LOG_LEVEL: "loud",
    });
    expect(problems).toHaveLength(7);
    expect(problems.join("\n")).toMatch(/^PORT: /m);
    expect(problems.join("\n")).toMatch(/^VESSEL_REGIONS \(entry 2\): a region name cannot be empty/m);
    expect(problems.join("\n")).toMatch(/^VESSEL_REGIONS \(entry 3\): /m);
    for (const env of ["VESSEL_PUBLIC_BASE_URL", "VESSEL_BOOTSTRAP_ADMIN_EMAILS", "DATABASE_URL", "LOG_LEVEL"]) {
      expect(problems.join("\n")).toMatch(new RegExp(`^${env}`, "m"));
    }
  });

  it("requires a shared master key with PostgreSQL, and checks its size", () => {
    expect(problemsOf({ DATABASE_URL: "postgresql://u@db/v" })).toEqual(["VESSEL_MASTER_KEY: required when DATABASE_URL is set (all nodes must share it)"]);
    expect(problemsOf({ VESSEL_MASTER_KEY: Buffer.alloc(16).toString("base64") })[0]).toMatch(/^VESSEL_MASTER_KEY: must be 32 bytes/);
    expect(loadConfig({ VESSEL_MASTER_KEY: Buffer.alloc(32, 1).toString("base64") }, noFile).masterKey).toBeDefined();
  });

  it("names file keys for problems that come from the file, and refuses a broken file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-config-"));
    fs.writeFileSync(path.join(dir, "vessel.config.json"), JSON.stringify({ regions: [], port: 70000 }));
    const problems = problemsOf({}, dir);
    expect(problems).toContainEqual(expect.stringMatching(/^vessel\.config\.json: regions: at least one region/));
    expect(problems).toContainEqual(expect.stringMatching(/^vessel\.config\.json: port: /));
    fs.writeFileSync(path.join(dir, "broken.json"), "{ nope");
    expect(problemsOf({ VESSEL_CONFIG: "broken.json" }, dir)[0]).toMatch(/broken\.json: /);
  });

  it("reads the trusted proxies and the workspace session cap, refusing what is not a CIDR or a positive count", () => {
    const c = loadConfig({ VESSEL_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.1, fd00::/8", VESSEL_WORKSPACE_MAX_SESSIONS: "3" }, noFile);
    expect(c.trustedProxies).toEqual(["10.0.0.0/8", "192.0.2.1", "fd00::/8"]);
    expect(c.workspaceMaxSessions).toBe(3);
    const defaults = loadConfig({}, noFile);
    expect(defaults.trustedProxies).toEqual([]);
    expect(defaults.workspaceMaxSessions).toBeUndefined();
    const problems = problemsOf({ VESSEL_TRUSTED_PROXIES: "10.0.0.0/8,lb.example,10.0.0.0/40", VESSEL_WORKSPACE_MAX_SESSIONS: "0" });
    expect(problems).toEqual([
      "VESSEL_TRUSTED_PROXIES (entry 2): must be a CIDR (10.0.0.0/8) or an IP address",
      "VESSEL_TRUSTED_PROXIES (entry 3): must be a CIDR (10.0.0.0/8) or an IP address",
      "VESSEL_WORKSPACE_MAX_SESSIONS: must be at least 1",
    ]);
  });

  it("documents every setting in docs/configuration.md (the README links there)", () => {
    const reference = fs.readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    for (const s of settings) expect(reference, s.env).toContain(`\`${s.env}\``);
  });
});
