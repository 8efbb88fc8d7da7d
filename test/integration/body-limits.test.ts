import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANONYMOUS_BODY_LIMIT } from "../../src/body-limits.ts";
import { GRAPHQL_BODY_MAX_VALUES } from "../../src/graphql/large-body.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

/**
 * Request bodies at the edge (src/body-limits.ts, src/graphql/large-body.ts): a caller without
 * credentials sends at most 64 KiB on every route, refused from the declared length; a caller with
 * an API key keeps GraphQL's own limit, and its large bodies are parsed off the event loop.
 */

/** A GraphQL request padded to about `bytes` by a variable the query does not declare. */
const padded = (bytes: number, query = "{ health { version } }") =>
  JSON.stringify({ query, variables: { pad: "x".repeat(Math.max(0, bytes - query.length - 40)) } });

describe("request bodies", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ startBrowsers: false });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  it.each([["/v1/sessions"], ["/graphql"], ["/mcp"], ["/v1/no-such-route"]])("refuses 65 KiB without credentials on %s: 413 problem", async (path) => {
    const res = await post(path, padded(65 * 1024));
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await res.json()) as { type: string }).type).toMatch(/payload-too-large$/);
  });

  it("lets exactly 64 KiB through without credentials (GraphQL answers it)", async () => {
    const body = padded(ANONYMOUS_BODY_LIMIT);
    const exact = body + " ".repeat(ANONYMOUS_BODY_LIMIT - Buffer.byteLength(body));
    expect(Buffer.byteLength(exact)).toBe(ANONYMOUS_BODY_LIMIT);
    const res = await post("/graphql", exact);
    expect(res.status).toBe(200); // read and executed (health asks for a key: its answer is an error, not a 413)
    expect(await res.json()).toHaveProperty("data");
  });

  it("reads a body of unknown length (chunked) without credentials up to 64 KiB, and refuses more", async () => {
    const url = new URL(`${t.url}/graphql`);
    const chunked = (body: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: "/graphql",
            method: "POST",
            headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", () => resolve(0)); // cut short by the answer: the status came first, or never
        req.setTimeout(10_000, () => (req.destroy(), reject(new Error("no answer"))));
        for (let i = 0; i < body.length; i += 8192) req.write(body.slice(i, i + 8192));
        req.end();
      });
    expect(await chunked(padded(1024))).toBe(200);
    expect(await chunked(padded(300 * 1024))).toBe(413);
  });

  it("answers a false key with a large body 401, without taking the body in", async () => {
    const res = await post("/graphql", padded(1024 * 1024), { authorization: "Bearer vsl_nope_nope" });
    expect(res.status).toBe(401);
  });

  it("runs an authenticated query with a 5 MB body, and refuses one with too many values (413) or that is not JSON (400)", async () => {
    const auth = { authorization: `Bearer ${ws.key}` };
    const ok = await post("/graphql", padded(5 * 1024 * 1024), auth);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { health: { version: string } } }).data.health.version).toEqual(expect.any(String));

    const many = JSON.stringify({ query: "{ health { version } }", variables: { pad: Array.from({ length: GRAPHQL_BODY_MAX_VALUES + 1 }, () => 1) } });
    const refused = await post("/graphql", many, auth);
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/JSON values/);

    const broken = await post("/graphql", `{"query": "{ health { version } }", ${" ".repeat(300 * 1024)}`, auth);
    expect(broken.status).toBe(400);
  });

  it("keeps a REST route's own limit for a caller with a key", async () => {
    const res = await post("/v1/sessions", padded(65 * 1024), { authorization: `Bearer ${ws.key}` });
    expect(res.status).toBe(413); // the create's own 16 KiB, not the anonymous rule
    expect(((await res.json()) as { detail: string }).detail).not.toMatch(/without credentials/);
  });
});
