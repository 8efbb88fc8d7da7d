import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { INTERNAL_WINDOW_MS, InternalAuth, internalHeaders } from "../../src/peers/internal-auth.ts";

describe("node-to-node authentication", () => {
  const master = randomBytes(32);
  let clock = 1_800_000_000_000;
  const now = () => clock;
  const a = new InternalAuth(master, "node-a", now);
  const b = new InternalAuth(master, "node-b", now);

  it("accepts a call signed by a node holding the same master key, once", () => {
    const headers = a.sign("node-b", "POST", "/internal/v1/sessions", '{"x":1}');
    expect(b.verify(headers, "POST", "/internal/v1/sessions", '{"x":1}')).toEqual({ ok: true, from: "node-a" });
    expect(b.verify(headers, "POST", "/internal/v1/sessions", '{"x":1}')).toEqual({ ok: false, reason: "replayed" });
  });

  it("refuses what was changed, meant for another node, too old, or signed with another master key", () => {
    const headers = a.sign("node-b", "POST", "/internal/v1/sessions", '{"x":1}');
    expect(b.verify(headers, "POST", "/internal/v1/sessions", '{"x":2}')).toMatchObject({ ok: false, reason: "bad signature" });
    expect(b.verify(headers, "POST", "/internal/v1/sessions/other", '{"x":1}')).toMatchObject({ ok: false, reason: "bad signature" });
    expect(b.verify(headers, "GET", "/internal/v1/sessions", '{"x":1}')).toMatchObject({ ok: false, reason: "bad signature" });
    expect(b.verify({ ...headers, [internalHeaders.from]: "node-c" }, "POST", "/internal/v1/sessions", '{"x":1}')).toMatchObject({ ok: false });
    const c = new InternalAuth(master, "node-c", now);
    expect(c.verify(headers, "POST", "/internal/v1/sessions", '{"x":1}')).toMatchObject({ ok: false, reason: "meant for another node" });
    const stranger = new InternalAuth(randomBytes(32), "node-a", now);
    expect(b.verify(stranger.sign("node-b", "GET", "/x"), "GET", "/x")).toMatchObject({ ok: false, reason: "bad signature" });
    const old = a.sign("node-b", "GET", "/x");
    clock += INTERNAL_WINDOW_MS + 1;
    expect(b.verify(old, "GET", "/x")).toMatchObject({ ok: false, reason: "outside the time window" });
    expect(b.verify({}, "GET", "/x")).toMatchObject({ ok: false, reason: "not signed" });
    // A customer's bearer credential is not a signature.
    expect(b.verify({ authorization: "Bearer vs_01ARZ3NDEKTSV4RRFFQ69G5FAV.secret" }, "GET", "/x")).toMatchObject({ ok: false });
  });
});
