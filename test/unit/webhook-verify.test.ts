import { execFileSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "@vessel/client";

/**
 * Both clients' verifyWebhook against signatures made here with node:crypto from the Standard
 * Webhooks text (not by Vessel's server code): valid ones pass, with one or two signatures (a
 * rotation); a changed body, another secret, a stale or future timestamp, or a missing header fail.
 */
const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const sign = (s: string, id: string, ts: number, body: string) =>
  `v1,${createHmac("sha256", Buffer.from(s.slice(6), "base64"))
    .update(`${id}.${ts}.${body}`)
    .digest("base64")}`;

const now = 1_800_000_000;
const body = JSON.stringify({ type: "session.released", timestamp: "2027-01-15T08:00:00.000Z", data: { id: "ses_1", status: "RELEASED" } });
const current = secret();
const previous = secret();
const headersFor = (signature: string, ts = now, id = "msg_01J") => ({ "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signature });

interface Case {
  name: string;
  secret: string | string[];
  headers: Record<string, string>;
  body: string;
  ok: boolean;
}
const cases: Case[] = [
  { name: "one signature", secret: current, headers: headersFor(sign(current, "msg_01J", now, body)), body, ok: true },
  {
    name: "two signatures during a rotation (the old secret's)",
    secret: previous,
    headers: headersFor(`${sign(current, "msg_01J", now, body)} ${sign(previous, "msg_01J", now, body)}`),
    body,
    ok: true,
  },
  {
    name: "two signatures during a rotation (the new secret's)",
    secret: current,
    headers: headersFor(`${sign(current, "msg_01J", now, body)} ${sign(previous, "msg_01J", now, body)}`),
    body,
    ok: true,
  },
  { name: "several secrets given", secret: [secret(), current], headers: headersFor(sign(current, "msg_01J", now, body)), body, ok: true },
  { name: "within the 5 minutes", secret: current, headers: headersFor(sign(current, "msg_01J", now - 299, body), now - 299), body, ok: true },
  { name: "a changed body", secret: current, headers: headersFor(sign(current, "msg_01J", now, body)), body: body.replace("RELEASED", "RUNNING"), ok: false },
  { name: "another secret", secret: secret(), headers: headersFor(sign(current, "msg_01J", now, body)), body, ok: false },
  { name: "another id", secret: current, headers: headersFor(sign(current, "msg_01J", now, body), now, "msg_02K"), body, ok: false },
  { name: "a stale timestamp", secret: current, headers: headersFor(sign(current, "msg_01J", now - 301, body), now - 301), body, ok: false },
  { name: "a future timestamp", secret: current, headers: headersFor(sign(current, "msg_01J", now + 301, body), now + 301), body, ok: false },
  { name: "v2 instead of v1", secret: current, headers: headersFor(sign(current, "msg_01J", now, body).replace("v1,", "v2,")), body, ok: false },
  { name: "no signature", secret: current, headers: { "webhook-id": "msg_01J", "webhook-timestamp": String(now) }, body, ok: false },
];

describe("verifyWebhook (TypeScript client)", () => {
  for (const c of cases) {
    it(`${c.ok ? "accepts" : "refuses"} ${c.name}`, () => {
      const run = () => verifyWebhook(c.secret, c.headers, c.body, { now: () => new Date(now * 1000) });
      if (c.ok) expect(run()).toMatchObject({ type: "session.released", data: { id: "ses_1" } });
      else expect(run).toThrow(WebhookVerificationError);
    });
  }

  it("reads Fetch Headers and Node's header objects alike, and a Buffer body", () => {
    const h = headersFor(sign(current, "msg_01J", now, body));
    expect(verifyWebhook(current, new Headers(h), Buffer.from(body), { now: () => new Date(now * 1000) }).type).toBe("session.released");
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(current, upper, body, { now: () => new Date(now * 1000) }).type).toBe("session.released");
  });
});

describe("verify_webhook (Python client)", () => {
  it("gives the same verdicts as the TypeScript one", () => {
    const script = `
import json, sys
from vessel import verify_webhook, WebhookVerificationError
out = []
for c in json.load(sys.stdin):
    try:
        verify_webhook(c["secret"], c["headers"], c["body"].encode(), now=${now})
        out.append(True)
    except WebhookVerificationError:
        out.append(False)
print(json.dumps(out))`;
    const answer = execFileSync("python3", ["-c", script], {
      input: JSON.stringify(cases),
      env: { ...process.env, PYTHONPATH: path.resolve(import.meta.dirname, "../../clients/python/src") },
    }).toString();
    expect(JSON.parse(answer)).toEqual(cases.map((c) => c.ok));
  });
});
