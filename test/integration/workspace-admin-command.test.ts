import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAdminSocket, type AdminSocket } from "../../src/admin-socket.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

/** The operator's path: `npm run admin -- workspace <slug> ...` over the admin socket (scripts/admin.ts). */
describe("npm run admin -- workspace", () => {
  let t: TestApp;
  let ws: Seeded;
  let socket: AdminSocket | null;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-admin-"));
    socket = await openAdminSocket(t.app.deps, dir);
  });
  afterAll(async () => {
    await socket?.close();
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const admin = (...args: string[]) =>
    run("npx", ["tsx", "scripts/admin.ts", "workspace", ...args], { cwd: root, env: { ...process.env, VESSEL_DATA_DIR: dir } }).catch(
      (err: { code: number; stdout: string; stderr: string }) => err,
    );

  it("sets limits within the hard bounds (queue_weight above an owner's 1 included), audited without an actor", async () => {
    const done = await admin(ws.workspace.slug, "--queue-weight", "4", "--max-sessions", "20", "--name", "Big tenant");
    expect("code" in done ? done.code : 0).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ name: "Big tenant", limits: { queue_weight: 4, max_sessions: 20 } });
    const row = await t.app.deps.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.workspace.id } });
    expect(row).toMatchObject({ queueWeight: 4, maxSessions: 20, name: "Big tenant" });
    const entry = await t.app.deps.db.prisma.auditEntry.findFirst({ where: { workspaceId: ws.workspace.id, action: "workspace.update" } });
    expect(entry).toMatchObject({ actorUserId: null, keyPrefix: null, target: `${ws.workspace.id}#name,max_sessions,queue_weight` });

    const back = await admin(ws.workspace.slug, "--max-sessions", "default");
    expect(JSON.parse(back.stdout).limits.max_sessions).toBeNull();
  });

  it("refuses a value outside the hard bounds or an unknown workspace, naming it, and changes nothing", async () => {
    const tooMuch = await admin(ws.workspace.slug, "--queue-weight", "5000");
    expect("code" in tooMuch ? tooMuch.code : 0).toBe(1);
    expect(tooMuch.stderr).toContain("queue_weight");
    expect(tooMuch.stderr).toContain("at most 1000");
    const unknown = await admin("no-such-workspace", "--queue-weight", "2");
    expect(unknown.stderr).toContain("no-such-workspace");
    const wrong = await admin("--queue-weight", "2");
    expect("code" in wrong ? wrong.code : 0).toBe(2);
    expect((await t.app.deps.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.workspace.id } })).queueWeight).toBe(4);
  });
});
