import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { GraphQLField } from "graphql";
import type { ServiceContext } from "../../src/kernel/context.ts";
import type { Operation } from "../../src/kernel/operations.ts";
import { schema } from "../../src/graphql/schema.ts";
import { routes } from "../../src/rest/routes/all.ts";
import { operations } from "../../src/services/operations.ts";

/**
 * REST and GraphQL are two adapters over one catalogue of operations (src/services/operations.ts).
 * Not only do the names match: a route and the root field of the same name both call the service
 * function the catalogue declares. Each operation's function is swapped for a probe, then every
 * REST handler and every GraphQL resolver is called; each must reach the probe of its own operation.
 */
class Reached extends Error {
  constructor(readonly id: string) {
    super(`reached ${id}`);
  }
}

/** Any value a handler or resolver reads from its input: strings for names and ids, itself for nested parts. */
const anything: unknown = new Proxy(() => undefined, {
  get: (_t, key) => (key === Symbol.toPrimitive ? () => "1" : key === "then" ? undefined : key === "length" ? 1 : anything),
});
const uuid = "0b7e1b9e-3c1d-4d5a-9f1e-2a6b7c8d9e0f";
/** GraphQL arguments: optional filters and cursors absent, ids and names "1", an input with what creates need. */
const args: unknown = new Proxy(
  {},
  {
    get: (_t, key) => {
      if (typeof key !== "string") return undefined;
      if (key === "limit" || key === "wait") return 1;
      if (key === "idempotencyKey") return uuid;
      if (key === "input") return { region: "us-east1", label: "label", sessionId: "ses_1" };
      if (key === "zipBase64" || key === "contentBase64") return "aGk=";
      if (/^(cursor|after|since|until|types|status|metadata|keyPrefix|action|actorUserId|target|newestFirst|endSessions|redirectTo)$/.test(key))
        return undefined;
      return "1";
    },
  },
);

/** A request whose body is one small file in `field`, for the routes that read multipart bodies themselves. */
function multipartRequest(field: string): unknown {
  const body = `--b\r\nContent-Disposition: form-data; name="${field}"; filename="a.zip"\r\nContent-Type: application/zip\r\n\r\nPK\r\n--b--\r\n`;
  const headers = { "content-type": "multipart/form-data; boundary=b", "content-length": String(body.length) };
  return Object.assign(Readable.from([Buffer.from(body)]), { headers, is: (type: string | string[]) => [type].flat().includes("multipart/form-data") });
}

const ctx = {
  deps: anything,
  requestId: "req",
  log: { child: () => ctx.log, info() {}, warn() {}, error() {}, debug() {} },
  principal: null,
  ip: null,
} as unknown as ServiceContext;

async function reachedBy(call: () => unknown): Promise<string | undefined> {
  try {
    await call();
  } catch (err) {
    if (err instanceof Reached) return err.id;
    return `an error before it: ${(err as Error).message.slice(0, 160)}`;
  }
  return undefined;
}

const rootFields = (): Array<[string, GraphQLField<unknown, unknown>]> =>
  [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((t) => (t ? Object.entries(t.getFields()) : []));

describe("one operation, two transports", () => {
  const catalogue = operations as unknown as Record<string, Operation & { run: unknown }>;
  const saved = new Map(Object.entries(catalogue).map(([id, op]) => [id, op.run]));
  const probe = () => {
    for (const [id, op] of Object.entries(catalogue)) (op as { run: unknown }).run = () => Promise.reject(new Reached(id));
  };
  const restore = () => {
    for (const [id, op] of Object.entries(catalogue)) (op as { run: unknown }).run = saved.get(id);
  };

  it("names every route's and every root field's operation from the catalogue, the same declaration for the same name", () => {
    const fields = new Map(
      rootFields()
        .filter(([, f]) => f.extensions?.operation)
        .map(([name, f]) => [name, f.extensions.operation]),
    );
    for (const route of routes) {
      expect(catalogue[route.operationId], route.operationId).toBe(route.operation);
      expect(fields.get(route.operationId), `GraphQL field ${route.operationId}`).toBe(route.operation);
    }
    for (const [name, op] of fields) expect(catalogue[name], name).toBe(op);
    expect(routes.length).toBeGreaterThan(20);
  });

  it("every REST handler calls its operation's function", async () => {
    probe();
    try {
      const missed: string[] = [];
      for (const route of routes) {
        const input = { params: anything, query: anything, body: anything, headers: { "idempotency-key": uuid } };
        const http = { req: route.multipart ? multipartRequest(route.multipart.field) : anything, res: { once() {}, setHeader() {} } };
        const id = await reachedBy(() => route.handler(ctx, input as never, http as never, route.operation.run));
        if (id !== route.operationId) missed.push(`${route.operationId} reached ${id ?? "nothing"}`);
      }
      expect(missed).toEqual([]);
    } finally {
      restore();
    }
  });

  it("every GraphQL root field that declares an operation calls its function", async () => {
    probe();
    try {
      const missed: string[] = [];
      for (const [name, field] of rootFields()) {
        const op = field.extensions?.operation as Operation | undefined;
        if (!op) continue;
        const resolve = field.subscribe ?? field.resolve!;
        const id = await reachedBy(() =>
          resolve({}, args, { services: ctx, http: { cookie: () => undefined, setCookie() {}, userAgent: "test" } }, {} as never),
        );
        if (id !== op.id) missed.push(`${name} reached ${id ?? "nothing"}`);
      }
      expect(missed).toEqual([]);
    } finally {
      restore();
    }
  });
});
