import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

/**
 * Who a jailed browser is on the host: a uid of its own from the jail users' range
 * (src/browser/jail/users.ts), never root and never the service's, owning only what Chromium writes.
 * Read from /proc/<pid>/status of the real Chromium processes, as an operator would.
 */

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** The host uid of every live process whose command line names `folder` (a browser's folder). */
function uidsOf(folder: string): Array<{ pid: number; uid: number; command: string }> {
  return fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .flatMap((e) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${e}/cmdline`, "utf8").split("\0");
        if (!cmdline.some((arg) => arg.includes(folder))) return [];
        const status = fs.readFileSync(`/proc/${e}/status`, "utf8");
        if (/^State:\s+Z/m.test(status)) return [];
        const uid = Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
        return [{ pid: Number(e), uid, command: cmdline[0]! }];
      } catch {
        return []; // gone meanwhile
      }
    });
}

describe.skipIf(!hasChromium)("a jailed browser's host user", () => {
  let t: TestApp;
  let ws: Seeded;

  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_JAIL: "required", VESSEL_BROWSER_WARM: "0", VESSEL_BROWSER_CAPACITY: "3" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  it.skipIf(process.getuid?.() !== 0)(
    "is neither root nor the service's uid, differs per browser, and owns only what Chromium writes",
    async () => {
      const sessions = [(await createSession(t, ws.key)).body, (await createSession(t, ws.key)).body];
      const folders = sessions.map((s) => path.dirname(t.app.deps.runtime.endpoint(s.id)!.uploadsDir));
      const seen = folders.map((folder) => {
        const processes = uidsOf(folder);
        // bwrap's, the forwarder's and Chromium's: the browser's main process among them.
        expect(
          processes.some((p) => p.command.includes("chrom")),
          JSON.stringify(processes),
        ).toBe(true);
        const uids = new Set(processes.map((p) => p.uid));
        expect(uids.size, JSON.stringify(processes)).toBe(1);
        const [uid] = [...uids];
        expect(uid).not.toBe(0);
        expect(uid).not.toBe(process.getuid!());
        expect(uid).toBeGreaterThanOrEqual(t.app.deps.config.browser.uid);

        // What Chromium writes is its user's alone; the folder and what the node writes stay the node's.
        for (const sub of ["profile", "home", "tmp", "downloads"]) {
          const stat = fs.statSync(path.join(folder, sub));
          expect([stat.uid, stat.mode & 0o777], sub).toEqual([uid, 0o700]);
        }
        for (const sub of [".", "uploads", "extensions"]) {
          const stat = fs.statSync(path.join(folder, sub));
          expect([stat.uid, stat.mode & 0o777], sub).toEqual([process.getuid!(), 0o711]);
        }
        return uid;
      });
      expect(seen[0]).not.toBe(seen[1]);
      for (const s of sessions) await releaseSession(t, ws.key, s.id);
    },
    120_000,
  );
});
