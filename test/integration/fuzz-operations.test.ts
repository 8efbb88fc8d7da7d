import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildClientSchema, getIntrospectionQuery, getNamedType, GraphQLObjectType, type IntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { percentEncode, Rng } from "../support/fuzz.ts";
import { faultKinds, faultyString, sampleOf, sampleOfGraphQL, spoil, type FaultKind } from "../support/schema-values.ts";

// Issue 41, acceptance: every operation of the API, as the running server describes it (every route
// of its /openapi.json, every mutation of its GraphQL introspection, and every MCP tool), is called with inputs built
// from its own declaration and spoilt in one place: NUL, lone surrogates, control characters, 1 MB
// strings, repeated ids, wrong types. None may answer 5xx (over GraphQL: no INTERNAL_SERVER_ERROR),
// and afterwards the audit log still takes entries: an ordinary call's entry appears within 2 s.
// The seed is fixed and the count bounded; a failure names the case. No timing is asserted: the
// 2 s is a correctness bound on the audit writer (a wedged writer never writes it).
//
// Path ids are bogus (no browser is started): the region of a create is never one the app serves.

const SEED = 0x41_7e47;
const REST_CASES_PER_OPERATION = 8;
const GRAPHQL_CASES_PER_MUTATION = 6;
const MCP_CASES_PER_TOOL = 4;
const CONCURRENCY = 8;

let t: TestApp;
let ws: Seeded;

beforeAll(async () => {
  t = await startTestApp();
  ws = await seedWorkspace(t, { rateLimitPerMinute: 1_000_000 });
});
afterAll(async () => t?.stop());

type Case = { name: string; url: string; init: RequestInit; huge: boolean; check?: (status: number, body: string) => string | undefined };

/** One attempt; "reset" when the connection was reset before an answer (a pooled one gone stale). */
async function send(c: Case): Promise<Response | "reset"> {
  try {
    return await fetch(c.url, { ...c.init, signal: AbortSignal.timeout(20_000) });
  } catch (err) {
    if (!c.huge && (err as { cause?: { code?: string } }).cause?.code === "ECONNRESET") return "reset";
    throw err;
  }
}

/** Runs the cases `CONCURRENCY` at a time; answers what went wrong (5xx, a check's complaint, no answer). */
async function runCases(cases: Case[]): Promise<{ failures: string[]; unsendable: number; statuses: Map<number, number> }> {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let unsendable = 0;
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      try {
        let res = await send(c);
        // A 503 the same request does not meet again was the machine's load (an input that causes
        // one causes it every time); so is a pooled connection the server closed as it was reused.
        if (res === "reset" || res.status === 503) {
          if (res !== "reset") await res.text();
          await new Promise((r) => setTimeout(r, 2000));
          res = await send(c);
          if (res === "reset") throw new Error("connection reset twice");
        }
        const body = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const complaint = res.status >= 500 ? `${res.status} ${body.slice(0, 300)}` : c.check?.(res.status, body);
        if (complaint) failures.push(`${c.name}: ${complaint}`);
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        // A header value no client may send (fetch refuses it before sending): not a case at all.
        if ((e instanceof TypeError && e.message !== "fetch failed") || e.cause?.code === "UND_ERR_INVALID_ARG") unsendable++;
        // A 1 MB path or header: the server answers 431 and may close before the request is written.
        else if (!c.huge) failures.push(`${c.name}: no answer (${e.message} ${e.cause?.code ?? ""})`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const health = await fetch(`${t.url}/healthz`);
  if (health.status !== 200) failures.push(`/healthz answered ${health.status} after the run`);
  return { failures, unsendable, statuses };
}

type Parameter = { name: string; in: "path" | "query" | "header"; style?: string; schema?: Record<string, unknown> };
type OpenApiOperation = { operationId: string; parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } };

/** A bogus id of the parameter's kind (`ses_…` for a session), or the real workspace slug now and then. */
function pathValue(rng: Rng, name: string, path: string): string {
  if (name === "slug") return rng.chance(0.7) ? ws.workspace.slug : `fuzz-${rng.int(100)}`;
  const kind =
    name === "download_id" ? "dl" : name === "delivery_id" ? "whd" : name === "key_id" ? "key" : (/\/v1\/(\w+?)s?\//.exec(path)?.[1]?.slice(0, 3) ?? "x");
  return `${kind}_01JZZZZZZZZZZZZZZZZZZ${rng.int(10_000).toString().padStart(5, "0")}`;
}

/** A text fault written into a URL: UTF-8 percent-encoded, and a lone surrogate as the bytes it would take (invalid UTF-8). */
function urlText(rng: Rng, value: string): string {
  return /[\ud800-\udfff]/.test(value) && rng.chance(0.5) ? `${percentEncode(value.replace(/[\ud800-\udfff]/g, ""))}%ED%A0%80` : percentEncode(value);
}

function restCase(rng: Rng, method: string, template: string, op: OpenApiOperation, components: Record<string, Record<string, unknown>>): Case {
  const kind: FaultKind = rng.pick(faultKinds);
  const params = op.parameters ?? [];
  const json = op.requestBody?.content["application/json"]?.schema;
  const multipart = op.requestBody?.content["multipart/form-data"];
  const targets = [...new Set(params.map((p) => p.in)), ...(json || multipart ? ["body"] : [])];
  const target = targets.length > 0 ? rng.pick(targets) : "none";
  const textKind = kind === "repeat" || kind === "wrong-type" ? "nul" : kind;
  let where = target;

  const pathParams = params.filter((p) => p.in === "path");
  const spoiltPath = target === "path" ? rng.pick(pathParams).name : undefined;
  let url = template;
  for (const p of pathParams) {
    const value =
      p.name === spoiltPath ? urlText(rng, faultyString(rng, textKind, pathValue(rng, p.name, template))) : percentEncode(pathValue(rng, p.name, template));
    if (p.name === spoiltPath) where = `path ${p.name}`;
    url = url.replace(`{${p.name}}`, value);
  }

  const query: string[] = [];
  const queryParams = params.filter((p) => p.in === "query");
  const spoiltQuery = target === "query" ? rng.pick(queryParams).name : undefined;
  for (const p of queryParams) {
    if (p.name !== spoiltQuery && rng.chance(0.5)) continue;
    let value = sampleOf(rng, p.schema, components);
    if (p.name === spoiltQuery) {
      ({ value } = spoil(rng, value, kind));
      where = `query ${p.name}`;
    }
    if (p.style === "deepObject" && value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) query.push(`${p.name}%5B${urlText(rng, k)}%5D=${urlText(rng, String(v))}`);
    } else query.push(`${p.name}=${urlText(rng, typeof value === "string" ? value : JSON.stringify(value))}`);
  }

  const headers: Record<string, string> = { ...bearer(ws.key) };
  for (const p of params.filter((x) => x.in === "header")) {
    const valid = p.name === "idempotency-key" ? randomUUID() : "bytes=0-1";
    headers[p.name] = target === "header" ? faultyString(rng, textKind, valid) : valid;
    if (target === "header") where = `header ${p.name}`;
  }

  let body: string | Uint8Array | undefined;
  if (json) {
    const sample = sampleOf(rng, json, components);
    const spoilt = target === "body" ? spoil(rng, sample, kind) : { value: sample, where: "" };
    if (target === "body") where = `body ${spoilt.where}`;
    body = JSON.stringify(spoilt.value);
    headers["content-type"] = "application/json";
  } else if (multipart) {
    const name = target === "body" ? faultyString(rng, textKind, "fuzz.txt") : "fuzz.txt";
    const boundary = "fuzzboundary41";
    body = new Uint8Array(
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name.replace(/["\r\n]/g, "_")}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          "utf8",
        ),
        Buffer.from("PK\u0003\u0004 not really a zip"),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    );
    headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
  }
  const full = `${url}${query.length ? `?${query.join("&")}` : ""}`;
  return {
    name: `${method.toUpperCase()} ${template} [${kind} in ${where}] ${JSON.stringify(full.slice(0, 160))}`,
    url: `${t.url}${full}`,
    init: { method: method.toUpperCase(), headers, body: body as BodyInit | undefined },
    huge: kind === "huge" && target !== "body",
  };
}

describe("every operation, spoilt inputs", () => {
  it("no route of the served OpenAPI document answers 5xx", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, OpenApiOperation | Parameter[]>>;
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const rng = new Rng(SEED);
    const cases: Case[] = [];
    let operations = 0;
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        operations++;
        const operation = op as OpenApiOperation;
        const shared = (item.parameters as Parameter[] | undefined) ?? [];
        for (let i = 0; i < REST_CASES_PER_OPERATION; i++)
          cases.push(restCase(rng, method, template, { ...operation, parameters: [...shared, ...(operation.parameters ?? [])] }, doc.components.schemas));
      }
    }
    expect(operations).toBeGreaterThan(30);
    const { failures, statuses } = await runCases(cases);
    expect(failures).toEqual([]);
    // The cases reached the operations' validation, not only the front door.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(cases.length / 4);
  }, 120_000);

  it("no GraphQL mutation of the introspected schema fails internally", async () => {
    const headers = { ...bearer(ws.key), "content-type": "application/json" };
    const introspection = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query: getIntrospectionQuery() }) });
    const { data } = (await introspection.json()) as { data: IntrospectionQuery };
    const schema = buildClientSchema(data);
    const mutations = Object.values(schema.getMutationType()!.getFields());
    expect(mutations.length).toBeGreaterThan(20);
    const rng = new Rng(SEED + 1);
    const cases: Case[] = [];
    for (const field of mutations) {
      for (let i = 0; i < GRAPHQL_CASES_PER_MUTATION; i++) {
        const kind: FaultKind = rng.pick(faultKinds);
        const variables: Record<string, unknown> = {};
        for (const arg of field.args) {
          variables[arg.name] = arg.name === "workspace" && rng.chance(0.5) ? ws.workspace.slug : sampleOfGraphQL(rng, arg.type);
        }
        const spoilt = field.args.length > 0 ? rng.pick(field.args).name : undefined;
        let where = "nothing";
        if (spoilt) {
          const s = spoil(rng, variables[spoilt], kind);
          variables[spoilt] = s.value;
          where = `${spoilt} ${s.where}`;
        }
        const declared = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(", ");
        const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(", ");
        const selection = getNamedType(field.type) instanceof GraphQLObjectType ? " { __typename }" : "";
        const query = `mutation Fuzz${declared ? `(${declared})` : ""} { ${field.name}${passed ? `(${passed})` : ""}${selection} }`;
        cases.push({
          name: `mutation ${field.name} [${kind} in ${where}]`,
          url: `${t.url}/graphql`,
          init: { method: "POST", headers, body: JSON.stringify({ query, variables }) },
          huge: false,
          check: (_status, body) => (/"INTERNAL_SERVER_ERROR"/.test(body) ? body.slice(0, 300) : undefined),
        });
      }
    }
    const { failures } = await runCases(cases);
    expect(failures).toEqual([]);
  }, 120_000);

  it('no MCP tool fails internally (its answer would start "The browser reported")', async () => {
    const client = new Client({ name: "fuzz", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(ws.key) } }));
    const failures: string[] = [];
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(10);
      const rng = new Rng(SEED + 2);
      for (const tool of tools) {
        for (let i = 0; i < MCP_CASES_PER_TOOL; i++) {
          const kind: FaultKind = rng.pick(faultKinds);
          const sample = sampleOf(rng, tool.inputSchema as Record<string, unknown>, {}) as Record<string, unknown>;
          // Bogus sessions only, and never a region this app serves: no browser is started.
          const args = {
            ...sample,
            session_id: `ses_01JZZZZZZZZZZZZZZZZZZ${rng.int(10_000)}`,
            ...(tool.name === "create_session" ? { region: "fuzz-region" } : {}),
          };
          const spoilt = spoil(rng, args, kind);
          const name = `${tool.name} [${kind} in ${spoilt.where}]`;
          try {
            const r = (await client.callTool({ name: tool.name, arguments: spoilt.value as Record<string, unknown> })) as { content: Array<{ text?: string }> };
            const text = r.content.map((c) => c.text ?? "").join(" ");
            if (/^The browser reported/.test(text)) failures.push(`${name}: ${text.slice(0, 300)}`);
          } catch (err) {
            // A protocol error (the SDK refusing arguments that break the tool's schema) is an answer, not a fault.
            if (!/MCP error -32602|Input validation error|invalid/i.test((err as Error).message))
              failures.push(`${name}: ${(err as Error).message.slice(0, 300)}`);
          }
        }
      }
    } finally {
      await client.close();
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("afterwards, an ordinary call's audit entry appears within 2 s", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const ordinary = await fetch(`${t.url}/v1/sessions`, { headers: bearer(ws.key) });
    expect(ordinary.status).toBe(200);
    const requestId = ordinary.headers.get("x-request-id");
    // The audit log is the dashboard's (an API key gets 403 there): read as the workspace's owner.
    const owner = userAuth(await seedUser(t, ws.workspace.id, "OWNER"));
    const deadline = Date.now() + 2000;
    let found = false;
    while (!found && Date.now() < deadline) {
      const page = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/audit-log?limit=100&since=${encodeURIComponent(since)}`, { headers: owner });
      expect(page.status).toBe(200);
      const items = ((await page.json()) as { items?: Array<{ request_id: string | null }> }).items ?? [];
      found = items.some((e) => e.request_id === requestId);
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found, `the audit entry of GET /v1/sessions (request ${requestId}) did not appear within 2 s`).toBe(true);
  }, 30_000);
});
