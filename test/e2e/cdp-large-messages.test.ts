import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

// Issue 24: a client message of 256 KiB or more is read, judged and serialised on the relay's
// judging thread (src/browser/cdp/policy/judge-thread.ts), not on the node's event loop. Through a real
// session's /cdp: large and small commands sent back to back reach Chromium in the order sent and
// are answered with the right results; a large command the policy refuses, a large malformed message and a large
// command for a session the client does not own are answered as small ones are; the connection stays up.

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");
const KiB = 1024;

type Answer = { id?: number; result?: { result?: { value?: unknown } }; error?: { code: number; message: string } };

/** A client on `url` that collects every answer (messages with an id) in arrival order. */
async function client(url: string): Promise<{ ws: WebSocket; answers: Answer[]; until(n: number): Promise<Answer[]> }> {
  const ws = new WebSocket(url, { maxPayload: 64 * 1024 * KiB });
  const answers: Answer[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (d) => {
    const m = JSON.parse(String(d)) as Answer;
    if (m.id === undefined && m.error === undefined) return;
    answers.push(m);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const until = async (n: number) => {
    while (answers.length < n) {
      if (ws.readyState !== WebSocket.OPEN) throw new Error(`closed after ${answers.length} answers`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
    return answers;
  };
  return { ws, answers, until };
}

describe.skipIf(!hasChromium)("the CDP relay judges large messages off the event loop, in order (real Chromium)", () => {
  let t: TestApp;
  let seeded: Seeded;
  let session: SessionBody;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "1" } });
    seeded = await seedWorkspace(t);
    session = (await createSession(t, seeded.key)).body;
    expect(session.status).toBe("RUNNING");
  });
  afterAll(async () => {
    if (session) await releaseSession(t, seeded.key, session.id);
    await t?.stop();
  });

  it("answers large and small commands in the order sent, with their results", async () => {
    const c = await client(session.connect_url!);
    const { targetId } = await new Promise<{ targetId: string }>((resolve) => {
      c.ws.once("message", (d) => resolve((JSON.parse(String(d)) as { result: { targetId: string } }).result));
      c.ws.send(JSON.stringify({ id: 1, method: "Target.createTarget", params: { url: "about:blank" } }));
    });
    c.ws.send(JSON.stringify({ id: 2, method: "Target.attachToTarget", params: { targetId, flatten: true } }));
    const attached = (await c.until(2))[1] as { result?: { sessionId?: string } };
    const sessionId = attached.result!.sessionId!;
    c.answers.length = 0;
    const evaluate = (id: number, expression: string, params: Record<string, unknown> = {}) =>
      c.ws.send(JSON.stringify({ id, method: "Runtime.evaluate", params: { expression, returnByValue: true, ...params }, sessionId }));
    // Each command records its id in the page as it runs: the order Chromium received them in.
    const mark = (id: number) => `(window.seen = window.seen || []).push(${id}), `;
    const big = (id: number, n: number) => `${mark(id)}'${"a".repeat(n)}'.length`;
    evaluate(10, big(10, 1024 * KiB));
    evaluate(11, `${mark(11)}1+1`);
    evaluate(12, big(12, 300 * KiB));
    evaluate(13, `${mark(13)}2+2`);
    // Refused by the policy for a host address deep in its parameters, however large the message.
    evaluate(14, big(14, 400 * KiB), { objectGroup: "file:///etc/passwd" });
    c.ws.send(`{"id":15,"method":"Runtime.evaluate","params":{"expression":"${"b".repeat(300 * KiB)}"`); // not JSON
    c.ws.send(JSON.stringify({ id: 16, method: "Runtime.evaluate", params: { expression: big(16, 300 * KiB) }, sessionId: "F".repeat(32) }));
    evaluate(17, `${mark(17)}3+3`);
    await c.until(8);
    evaluate(18, "window.seen");
    const answers = await c.until(9);
    // Answers come as they are ready (the relay's own at once), each once, to the right id.
    const byId = new Map(answers.map((a) => [a.id ?? null, a]));
    expect([...byId.keys()].sort()).toEqual([10, 11, 12, 13, 14, 16, 17, 18, null].sort());
    expect([10, 11, 12, 13, 17].map((id) => byId.get(id)!.result?.result?.value)).toEqual([1024 * KiB, 2, 300 * KiB, 4, 6]);
    expect(byId.get(14)!.error?.message).toMatch(/^Vessel policy: Runtime\.evaluate refused/);
    expect(byId.get(null)!.error?.code).toBe(-32700);
    expect(byId.get(16)!.error?.code).toBe(-32001);
    // What went to Chromium went in the order sent, large and small alike.
    expect(byId.get(18)!.result?.result?.value).toEqual([10, 11, 12, 13, 17]);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    c.ws.close();
  });
});
