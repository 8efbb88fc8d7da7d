import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../support/sessions.ts";

// The process's last line of defence (src/last-line.ts), in a real process with a real server:
// what a request's handling throws and nobody catches is logged and costs that request only; a
// broken invariant, or a throw outside any client's handling, still ends the process with 1.

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Child {
  url: string;
  lines: string[];
  process: ChildProcess;
  exited: Promise<number | null>;
}

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.process.exitCode === null) c.process.kill("SIGKILL");
});

async function start(): Promise<Child> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/last-line-child.ts"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
  const ready = await eventually(
    async () => lines.find((l) => l.startsWith("READY ")) ?? (child.exitCode !== null ? "EXITED" : undefined),
    (l) => l !== undefined,
    90_000,
  );
  expect(ready).not.toBe("EXITED");
  const c = { url: ready!.slice("READY ".length), lines, process: child, exited };
  children.push(c);
  return c;
}

/** The log entries of failures survived, as parsed JSON. */
const survived = (c: Child) =>
  c.lines
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg: string; client?: { url: string }; err?: { message: string } })
    .filter((e) => /the node goes on/.test(e.msg));

describe("the last line of defence", () => {
  it("survives what a request's handling throws later or rejects unhandled, and cuts a request that can no longer answer", async () => {
    const c = await start();
    expect((await fetch(`${c.url}/v1/test-late-throw`)).status).toBe(200);
    await eventually(
      async () => survived(c),
      (s) => s.some((e) => e.err?.message === "a late throw in a timer a request started"),
    );
    expect((await fetch(`${c.url}/v1/test-floating-rejection`)).status).toBe(200);
    await eventually(
      async () => survived(c),
      (s) => s.some((e) => e.err?.message === "a rejection nobody handled"),
    );
    // The request whose handling threw is cut off: its client sees the connection fail, not a wait without end.
    await expect(fetch(`${c.url}/v1/test-throw-before-answer`)).rejects.toThrow();
    const logged = await eventually(
      async () => survived(c),
      (s) => s.length === 3,
    );
    expect(logged.map((e) => e.client?.url)).toEqual(["/v1/test-late-throw", "/v1/test-floating-rejection", "/v1/test-throw-before-answer"]);
    expect(c.process.exitCode).toBe(null);
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it("exits with 1 on a broken invariant, even inside a request", async () => {
    const c = await start();
    await fetch(`${c.url}/v1/test-broken-invariant`);
    expect(await c.exited).toBe(1);
    expect(c.lines.join("\n")).toMatch(/broken invariant\): exiting/);
  }, 120_000);

  it("exits with 1 on a throw outside any client's handling", async () => {
    const c = await start();
    c.process.stdin!.write("outside\n");
    expect(await c.exited).toBe(1);
    expect(c.lines.join("\n")).toMatch(/outside any client's handling/);
  }, 120_000);
});
