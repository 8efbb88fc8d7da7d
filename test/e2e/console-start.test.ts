import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forPeople, resolvedLogFormat } from "../../src/console-log.ts";
import { requestLogLevel } from "../../src/request-log.ts";
import { LOCAL_ADMIN_EMAIL } from "../../src/services/sign-ins/users.ts";
import type { TestApp } from "../support/app.ts";
import { CookieJar, EXCHANGE_SIGN_IN, gql } from "../support/dashboard.ts";
import { spawnNode, type NodeProcess } from "../support/processes.ts";
import { eventually } from "../support/sessions.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const LAST_LINE = /^Sign in \(one-time link, `npm run sign-in-link` for another\): (http:\/\/\S+\/dashboard\/sign-in\?token=\S+#verifier=\S+)$/;

function linkParts(link: string): { token: string; verifier: string } {
  const url = new URL(link);
  return { token: url.searchParams.get("token")!, verifier: new URLSearchParams(url.hash.slice(1)).get("verifier")! };
}

/** Signs in with a link's token and verifier (what the dashboard does with it); the address signed in, or the error code. */
async function exchange(url: string, link: string): Promise<string> {
  const { token, verifier } = linkParts(link);
  const r = await gql<{ exchangeSignIn: { me: { email: string } } }>(
    { url } as TestApp,
    EXCHANGE_SIGN_IN,
    { token, codeVerifier: verifier },
    { jar: new CookieJar() },
  );
  return r.data?.exchangeSignIn.me.email ?? String(r.errors?.[0]?.extensions?.code);
}

/** Issue 45 points 4 and 5, on a real `src/main.ts`: the last line of the start, `npm run sign-in-link`, and the console's format. */
describe("the console of a first start, and a fresh sign-in link while it runs", () => {
  let dir: string;
  let node: NodeProcess;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-console-"));
    // stdout is a pipe here, so the default (`auto`) writes JSON.
    node = await spawnNode({ VESSEL_DATA_DIR: path.join(dir, "data") });
  });
  afterAll(async () => {
    await node?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("ends the start with the sign-in link alone on the last line; health probes add no line after it", async () => {
    // stdout (the log) and stderr (the banner) are two pipes here, read in no fixed order; on a
    // terminal they are one. The console's own lines (not JSON) end with the link.
    const consoleLines = () => node.log.filter((l) => !l.startsWith("{"));
    const last = await eventually(
      async () => consoleLines().at(-1) ?? "",
      (line) => LAST_LINE.test(line),
      30_000,
    );
    const logged = node.log.length;
    // spawnNode polled /healthz until it answered, and more probes now: none of them is a line at info.
    for (let i = 0; i < 3; i++) expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
    await fetch(`${node.url}/readyz`);
    await new Promise((r) => setTimeout(r, 300));
    expect(node.log.length).toBe(logged);
    // The same link as in the banner above it.
    const link = LAST_LINE.exec(last)![1]!;
    expect(node.log.filter((l) => l.includes(link))).toHaveLength(2);
    // Not a terminal: every other stdout line is JSON, and none carries the link.
    const json = node.log.filter((l) => l.startsWith("{"));
    expect(json.length).toBeGreaterThan(0);
    for (const l of json) expect(() => JSON.parse(l)).not.toThrow();
    expect(json.some((l) => l.includes("token="))).toBe(false);
    expect(json.some((l) => (JSON.parse(l) as { url?: string }).url === "/healthz")).toBe(false);
    // A call that matters is still a line.
    await fetch(`${node.url}/v1/health`);
    await eventually(
      async () => node.log.some((l) => l.startsWith("{") && (JSON.parse(l) as { url?: string }).url === "/v1/health"),
      (seen) => seen,
    );
  });

  it("`npm run sign-in-link` prints a fresh one-time link for the local administrator, which signs in once", async () => {
    const env = { ...process.env, VESSEL_DATA_DIR: path.join(dir, "data") };
    const first = await run("npm", ["run", "-s", "sign-in-link"], { cwd: root, env });
    const link = first.stdout.trim();
    expect(link).toMatch(new RegExp(`^${node.url}/dashboard/sign-in\\?token=[A-Za-z0-9_-]+#verifier=[A-Za-z0-9_-]+$`));
    expect(first.stderr).toContain(`Sign in as ${LOCAL_ADMIN_EMAIL} with this one-time link`);
    // A new link each time, never the printed one.
    const second = (await run("npm", ["run", "-s", "sign-in-link"], { cwd: root, env })).stdout.trim();
    expect(second).not.toBe(link);
    expect(node.log.some((l) => l.includes(link))).toBe(false);

    expect(await exchange(node.url, link)).toBe(LOCAL_ADMIN_EMAIL);
    expect(await exchange(node.url, link)).toBe("UNAUTHENTICATED");
    expect(await exchange(node.url, second)).toBe(LOCAL_ADMIN_EMAIL);

    // The same from the client's command line on the server's machine: `vessel admin sign-in-link`.
    const third = await run("npm", ["run", "-s", "vessel", "--", "admin", "sign-in-link"], { cwd: root, env });
    expect(third.stdout.trim()).toMatch(new RegExp(`^${node.url}/dashboard/sign-in\\?token=`));
    expect(await exchange(node.url, third.stdout.trim())).toBe(LOCAL_ADMIN_EMAIL);

    // The socket it asks is the server user's alone.
    expect(fs.statSync(path.join(dir, "data", "admin.sock")).mode & 0o777).toBe(0o600);
  });

  it("without a running server it says so, and what to check", async () => {
    const env = { ...process.env, VESSEL_DATA_DIR: path.join(dir, "nothing-here") };
    const failed = await run("npx", ["tsx", "scripts/admin.ts", "sign-in-link"], { cwd: root, env }).catch((err: { code: number; stderr: string }) => err);
    expect("code" in failed ? failed.code : 0).toBe(1);
    expect(failed.stderr).toContain("is the server running (npm start), with the same VESSEL_DATA_DIR?");
  });
});

describe("the console format", () => {
  let node: NodeProcess;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-console-"));
    node = await spawnNode({ VESSEL_DATA_DIR: path.join(dir, "data"), VESSEL_LOG_FORMAT: "pretty" });
  });
  afterAll(async () => {
    await node?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("VESSEL_LOG_FORMAT=pretty: one line per entry with local time, level and message, no JSON, requests in a word", async () => {
    await fetch(`${node.url}/openapi.json`);
    const line = await eventually(
      async () => node.log.find((l) => l.includes("GET /openapi.json")) ?? "",
      (l) => l !== "",
    );
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/openapi\.json → 200 \(\d+ ms\)$/);
    // Local time: the hour the machine's clock shows (TZ of the server), not UTC's epoch milliseconds.
    const hour = Number(line.slice(1, 3));
    expect([new Date(Date.now() - 60_000).getHours(), new Date().getHours()]).toContain(hour);
    expect(node.log.some((l) => l.startsWith("{"))).toBe(false);
    expect(node.log.some((l) => l.includes("/healthz"))).toBe(false);
  });

  it("auto is pretty on a terminal only; request lines and components read as words; probes and assets go to debug", () => {
    expect(resolvedLogFormat("auto", true)).toBe("pretty");
    expect(resolvedLogFormat("auto", false)).toBe("json");
    expect(resolvedLogFormat("json", true)).toBe("json");
    expect(resolvedLogFormat("pretty", false)).toBe("pretty");
    expect(
      forPeople({ level: 30, time: 1, pid: 1, hostname: "h", requestId: "r", msg: "request", method: "GET", url: "/v1/sessions", status: 201, ms: 12 }),
    ).toEqual({
      level: 30,
      time: 1,
      msg: "GET /v1/sessions → 201 (12 ms)",
    });
    expect(forPeople({ level: 40, msg: "no Chromium binary", component: "browsers", executablePath: "/x" })).toEqual({
      level: 40,
      msg: "[browsers] no Chromium binary",
      executablePath: "/x",
    });
    for (const quiet of ["/healthz", "/readyz", "/metrics", "/dashboard/assets/index-abc.js", "/live-view/assets/viewer.js"])
      expect(requestLogLevel(quiet, 200)).toBe("debug");
    expect(requestLogLevel("/readyz", 503)).toBe("info");
    expect(requestLogLevel("/v1/sessions", 201)).toBe("info");
    expect(requestLogLevel("/dashboard/", 200)).toBe("info");
  });
});
