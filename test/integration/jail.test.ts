import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EgressPolicy } from "../../src/browser/egress/policy.ts";
import { openEgressListener } from "../../src/browser/egress/proxy.ts";
import { proxyArgs, type EgressListener } from "../../src/browser/egress/shared.ts";
import { detectIsolation, jailedCommand, JAIL_PROXY_PORT } from "../../src/browser/jail/jail.ts";
import { createLogger } from "../../src/logger.ts";
import { seedWorkspace, startTestApp } from "../support/app.ts";

/**
 * The jail (src/browser/jail/jail.ts) around a real Chromium driven over --remote-debugging-pipe, with
 * the real egress listener as its only way out. Each refusal is checked against an unjailed
 * browser doing the same thing, which must succeed: so a test fails if its method cannot see.
 */

const CHROMIUM = "/usr/lib/chromium/chromium-headless-shell";
const log = createLogger("silent");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "vj-"));
const secret = `master-key-${randomBytes(8).toString("hex")}`;

/** One Chromium over its pipe: JSON messages ended by "\0", fd 3 to Chromium, fd 4 from it. */
class PipeBrowser {
  readonly #pending = new Map<number, (m: Record<string, any>) => void>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly #waiters: Array<{ match: (m: Record<string, any>) => boolean; resolve: () => void }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  #id = 0;
  #buffered = "";
  browserSession = "";
  readonly exited: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    readonly dir: string,
  ) {
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.stderr!.resume(); // drained: a full pipe would block Chromium
    (child.stdio[4] as Readable).setEncoding("utf8").on("data", (chunk: string) => {
      this.#buffered += chunk;
      for (let end = this.#buffered.indexOf("\0"); end >= 0; end = this.#buffered.indexOf("\0")) {
        const message = JSON.parse(this.#buffered.slice(0, end)) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        this.#buffered = this.#buffered.slice(end + 1);
        if (typeof message.id === "number") this.#pending.get(message.id)?.(message);
        for (const w of [...this.#waiters]) if (w.match(message)) w.resolve();
      }
    });
  }

  static async launch(name: string, jailed: boolean, egressSocket?: string, egressPort?: number): Promise<PipeBrowser> {
    const dir = path.join(root, name);
    for (const sub of ["profile", "home", "tmp"]) fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
    const args = [
      "--headless",
      "--remote-debugging-pipe",
      `--user-data-dir=${dir}/profile`,
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--disable-gpu",
      ...(jailed ? proxyArgs(JAIL_PROXY_PORT) : egressPort ? proxyArgs(egressPort) : []),
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), // dropped by jailedCommand: the jail's user is never root
      "about:blank",
    ];
    const { command, args: argv } = jailed ? jailedCommand({ executablePath: CHROMIUM, args, dir, egressSocket }) : { command: CHROMIUM, args };
    const child = spawn(command, argv, {
      cwd: path.join(dir, "home"),
      detached: true,
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
      env: { PATH: "/usr/bin:/bin", HOME: path.join(dir, "home"), TMPDIR: path.join(dir, "tmp") },
    });
    const browser = new PipeBrowser(child, dir);
    browser.browserSession = (await browser.send("Target.attachToBrowserTarget", {}, "")).sessionId;
    return browser;
  }

  send(method: string, params: object = {}, sessionId = this.browserSession): Promise<Record<string, any>> {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const id = ++this.#id;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      (this.child.stdio[3] as Writable).write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + "\0");
    });
  }

  /** A new page (in `browserContextId` if given) navigated to `url`: the navigation's error, if any, and the page's HTML. */
  async open(url: string, browserContextId?: string): Promise<{ errorText?: string; text: string }> {
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank", ...(browserContextId ? { browserContextId } : {}) });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    await this.send("Page.enable", {}, sessionId);
    const loaded = new Promise<void>((resolve) =>
      this.#waiters.push({ match: (m) => m.method === "Page.loadEventFired" && m.sessionId === sessionId, resolve }),
    );
    const nav = await this.send("Page.navigate", { url }, sessionId);
    if (!nav.errorText) await loaded;
    const text = await this.send("Runtime.evaluate", { expression: "document.documentElement.outerHTML", returnByValue: true }, sessionId);
    return { errorText: nav.errorText, text: String(text.result.value ?? "") };
  }
}

/** Live (not zombie) processes whose process group is `pgid`, with what they run. */
function groupMembers(pgid: number): Array<{ pid: number; cmdline: string; status: string }> {
  return fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .flatMap((e) => {
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) !== pgid || fields[0] === "Z" || fields[0] === "X") return [];
        return [
          {
            pid: Number(e),
            cmdline: fs.readFileSync(`/proc/${e}/cmdline`, "utf8").replaceAll("\0", " "),
            status: fs.readFileSync(`/proc/${e}/status`, "utf8"),
          },
        ];
      } catch {
        return []; // gone meanwhile
      }
    });
}
const userNs = (pid: number) => fs.readlinkSync(`/proc/${pid}/ns/user`);

describe("the browser jail", () => {
  let hostHits = 0;
  let siteHits = 0;
  const host = http.createServer((_req, res) => res.end(`host-only ${hostHits++}`));
  const site = http.createServer((_req, res) => res.end(`hello from the site ${siteHits++}`));
  let siteUrl = "";
  let hostUrl = "";
  let egress: EgressListener;
  let jailed: PipeBrowser;
  let free: PipeBrowser;

  beforeAll(async () => {
    // The data folder's secrets, outside every browser's folder.
    fs.writeFileSync(path.join(root, "master.key"), `${secret}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(root, "secrets.txt"), `${secret}\n`, { mode: 0o600 });
    await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
    await new Promise<void>((r) => site.listen(0, "127.0.0.2", r));
    hostUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}/`;
    siteUrl = `http://127.0.0.2:${(site.address() as { port: number }).port}/`;
    egress = await openEgressListener({ policy: new EgressPolicy({ cidrs: ["127.0.0.2/32"], hosts: [] }), log, socketPath: path.join(root, "b1.egress.sock") });
    [jailed, free] = await Promise.all([PipeBrowser.launch("b1", true, egress.socketPath), PipeBrowser.launch("b2", false)]);
  });

  afterAll(async () => {
    for (const b of [jailed, free]) if (b) process.kill(-b.child.pid!, "SIGKILL");
    await egress?.close();
    host.close();
    site.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("shows no host file: /etc/passwd, the data folder, the master key", async () => {
    expect((await free.open("file:///etc/passwd")).text).toContain("root:x:0:0");
    expect((await free.open(`file://${root}/secrets.txt`)).text).toContain(secret);
    expect((await free.open(`file://${root}/`)).text).toContain("master.key");
    // Unjailed, the key is there (Chromium downloads what it does not display: the navigation is aborted).
    expect((await free.open(`file://${root}/master.key`)).errorText).toBe("net::ERR_ABORTED");

    expect((await jailed.open("file:///etc/passwd")).text).not.toContain("root:x:0:0");
    expect((await jailed.open(`file://${root}/secrets.txt`)).text).not.toContain(secret);
    expect((await jailed.open(`file://${root}/master.key`)).errorText).toBe("net::ERR_FILE_NOT_FOUND");
    const listing = await jailed.open(`file://${root}/`);
    expect(listing.text).toContain("b1"); // its own folder, and nothing else of the data folder
    expect(listing.text).not.toContain("master.key");
    expect(listing.text).not.toContain("b2");
  });

  it("reaches nothing on the host's loopback, even from a browser context with its own direct:// proxy", async () => {
    const before = hostHits;
    const direct = await free.send("Target.createBrowserContext", { proxyServer: "direct://" });
    expect((await free.open(hostUrl, direct.browserContextId)).text).toContain("host-only");
    expect(hostHits).toBe(before + 1);

    const inJail = await jailed.send("Target.createBrowserContext", { proxyServer: "direct://" });
    const refused = await jailed.open(hostUrl, inJail.browserContextId);
    expect(refused.errorText).toMatch(/^net::ERR_/);
    const proxied = await jailed.open(hostUrl); // through the egress listener, whose policy refuses loopback
    expect(proxied.errorText).toMatch(/^net::ERR_/);
    expect(hostHits).toBe(before + 1);
  });

  it("loads an allowed site through the egress listener", async () => {
    const page = await jailed.open(siteUrl);
    expect(page.errorText).toBeUndefined();
    expect(page.text).toContain("hello from the site");
    expect(siteHits).toBeGreaterThan(0);
  });

  it("keeps Chromium's own sandbox on inside: renderers in a further user namespace, under seccomp", async () => {
    await jailed.open(siteUrl);
    const members = groupMembers(jailed.child.pid!);
    const renderers = members.filter((p) => p.cmdline.includes("--type=renderer"));
    const main = members.find((p) => p.cmdline.startsWith(CHROMIUM) && !p.cmdline.includes("--type="));
    expect(main).toBeDefined();
    expect(renderers.length).toBeGreaterThan(0);
    expect(userNs(main!.pid)).not.toBe(userNs(process.pid)); // the jail's own user namespace
    expect(main!.cmdline).not.toContain("--no-sandbox");
    for (const r of renderers) {
      expect(r.status).toMatch(/^Seccomp:\s+2$/m);
      expect(userNs(r.pid)).not.toBe(userNs(main!.pid));
    }
    expect(members.some((p) => p.cmdline.startsWith("vessel-egress"))).toBe(true); // the forwarder (browser/jail/forwarder.ts names itself) is in the group too
  });

  it("ends every process in the jail with its group, killed or closed politely", async () => {
    const killed = await PipeBrowser.launch("b3", true, egress.socketPath);
    const closed = await PipeBrowser.launch("b4", true, egress.socketPath);
    await Promise.all([killed.open(siteUrl), closed.open(siteUrl)]);
    for (const b of [killed, closed]) expect(groupMembers(b.child.pid!).length).toBeGreaterThan(3);
    process.kill(-killed.child.pid!, "SIGKILL");
    await closed.send("Browser.close");
    await Promise.all([killed.exited, closed.exited]);
    // The jail's init and the forwarder go with the pid namespace; poll until the kernel has reaped them.
    for (const b of [killed, closed]) {
      while (groupMembers(b.child.pid!).length > 0) await new Promise((r) => setTimeout(r, 20));
      expect(groupMembers(b.child.pid!)).toEqual([]);
    }
  });
});

describe("a jailed browser's uploads folder", () => {
  it("is read-only inside the jail and cannot be renamed or swapped for a link, while the rest of the folder is writable", () => {
    // A folder of its own: the browser tests' root is gone once their block has ended.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vj-up-"));
    fs.mkdirSync(path.join(dir, "uploads"));
    fs.writeFileSync(path.join(dir, "uploads", "given.txt"), "given");
    // What a browser that runs code of its tenant's choosing could try, each step reported.
    const script = [
      `cd ${dir}`,
      "cat uploads/given.txt && echo ' read'",
      "touch written-here && echo 'wrote beside'",
      "touch uploads/new 2>/dev/null && echo 'WROTE INTO uploads'",
      "rm uploads/given.txt 2>/dev/null && echo 'REMOVED FROM uploads'",
      "mv uploads gone 2>/dev/null && echo 'RENAMED uploads'",
      "rmdir uploads 2>/dev/null && echo 'REMOVED uploads'",
      "ln -s /etc uploads/etc 2>/dev/null && echo 'LINKED IN uploads'",
      "true",
    ].join("\n");
    const { command, args } = jailedCommand({ executablePath: "/bin/sh", args: ["-c", script], dir });
    const run = spawnSync(command, args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual(["given read", "wrote beside"]);
    expect(fs.readdirSync(path.join(dir, "uploads"))).toEqual(["given.txt"]);
    expect(fs.lstatSync(path.join(dir, "uploads")).isDirectory()).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("detectIsolation", () => {
  it("jails here, in auto and required; off is no jail, said in the log", async () => {
    expect(await detectIsolation("auto", log)).toEqual({ level: "jail" });
    expect(await detectIsolation("required", log)).toEqual({ level: "jail" });
    const lines: string[] = [];
    const recorded = createLogger("info", { write: (line: string) => void lines.push(line) });
    expect(await detectIsolation("off", recorded)).toEqual({ level: "none", reason: "VESSEL_BROWSER_JAIL=off" });
    expect(lines.join("")).toContain("NOT jailed");
  });

  it("where the kernel refuses user namespaces: auto warns loudly and runs without, required refuses to start", () => {
    // A user namespace of our own whose limit for further ones is 0: what a locked-down kernel answers.
    const script = `
      import { detectIsolation } from ${JSON.stringify(new URL("../../src/browser/jail/jail.ts", import.meta.url).pathname)};
      import { createLogger } from ${JSON.stringify(new URL("../../src/logger.ts", import.meta.url).pathname)};
      const log = createLogger("info");
      console.log(JSON.stringify({ auto: await detectIsolation("auto", log) }));
      await detectIsolation("required", log).catch((err) => console.log(JSON.stringify({ required: err.message })));`;
    const run = spawnSync(
      "unshare",
      ["--user", "--map-root-user", "sh", "-c", 'echo 0 > /proc/sys/user/max_user_namespaces && exec node --import tsx --input-type=module -e "$0"', script],
      { encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(lines.find((l) => l.auto)?.auto).toMatchObject({ level: "none", reason: expect.stringContaining("namespace") });
    expect(lines.find((l) => l.level === 50)?.msg).toMatch(/BROWSERS ARE NOT JAILED.*bubblewrap/);
    expect(lines.find((l) => l.required)?.required).toMatch(/^VESSEL_BROWSER_JAIL=required, but browsers cannot be jailed/);
  });
});

describe("/v1/health", () => {
  it.each([
    [{ VESSEL_BROWSER_JAIL: "auto" }, { level: "jail", cdp_policy: "on" }],
    [
      { VESSEL_BROWSER_JAIL: "off", VESSEL_CDP_POLICY: "off" },
      { level: "none", cdp_policy: "off" },
    ],
  ])("reports the node's isolation with %o", async (env, isolation) => {
    const t = await startTestApp({ env });
    try {
      const { key } = await seedWorkspace(t);
      const health = (await (await fetch(`${t.url}/v1/health`, { headers: { authorization: `Bearer ${key}` } })).json()) as { isolation: unknown };
      expect(health.isolation).toEqual(isolation);
      expect(t.app.deps.browsers.isolation.level).toBe(isolation.level);
    } finally {
      await t.stop();
    }
  });
});
