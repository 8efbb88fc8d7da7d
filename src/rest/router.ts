import { gatherDeepObjects } from "./deep-object.ts";
import { foldQueryCase } from "./query-case.ts";
import { pipeline } from "node:stream/promises";
import { ANONYMOUS_BODY_LIMIT, BODY_CAP } from "../body-limits.ts";
import bytes from "bytes";
import express, { type Request, type Response } from "express";
import type { z } from "zod";
import type { UserAuthenticator } from "../auth/request-auth.ts";
import { authenticateRequest } from "../services/audit/request-audit.ts";
import { auditedCall, type CallAudit } from "../services/audit/audited-call.ts";
import { AppError, validationError, type FieldError } from "../errors.ts";
import { actingIn, type AppDeps, type ServiceContext } from "../kernel/context.ts";
import { toAppError } from "../kernel/problems.ts";
import { fieldErrorsOf } from "../kernel/zod-issues.ts";
import { enterDatabaseBudget, restartDatabaseBudget } from "../db/budget.ts";
import { textFaults } from "../kernel/text.ts";
import { FileReply, MediaReply, Reply, type AnyRoute, type RouteInput } from "./define-route.ts";

/** `/v1/sessions/{id}:keepalive` → `/v1/sessions/:id\:keepalive` (a literal colon must be escaped in Express 5). */
export function toExpressPath(path: string): string {
  return path.replaceAll(":", "\\:").replace(/\{(\w+)\}/g, ":$1");
}

/**
 * Where a parsed body or query holds a key `__proto__` of its own. JSON.parse makes one, but zod leaves
 * it out of what it answers (it would replace the result's prototype), so a label or a filter named so
 * would be dropped without a word: it is refused instead.
 */
function protoKeys(value: unknown, path: string[], found: FieldError[], depth = 0): void {
  if (!value || typeof value !== "object" || depth > 32 || found.length > 0) return;
  if (Object.hasOwn(value, "__proto__")) found.push({ field: [...path, "__proto__"].join("."), message: "`__proto__` is not accepted as a key" });
  for (const [key, inner] of Object.entries(value)) protoKeys(inner, [...path, key], found, depth + 1);
}

/** The request's headers that the route's schema names. */
function declaredHeaders(schema: z.ZodObject, req: Request): Record<string, unknown> {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, req.headers[name]]));
}

/** Parses every declared part of the request and reports all problems together. */
function parseInput(route: AnyRoute, req: Request, deps: AppDeps): Record<string, unknown> {
  const parts: Record<keyof RouteInput, unknown> = { params: req.params, query: gatherDeepObjects(req.query), headers: req.headers, body: req.body };
  const parsed: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const key of ["params", "query", "headers", "body"] as const) {
    const schema = route.input[key];
    // Text is total (kernel/text.ts): checked on what arrived, before the schema's own refinements
    // and transforms see it; the path and query even where undeclared (a handler may read them), of
    // the headers only the declared ones (those a handler may store).
    const arrived = key === "headers" ? (schema ? declaredHeaders(schema as z.ZodObject, req) : undefined) : key === "body" && !schema ? undefined : parts[key];
    const faults = textFaults(arrived, [key]);
    if (faults.length > 0) {
      errors.push(...faults);
      continue;
    }
    if (!schema) continue;
    if (key === "body" || key === "query") protoKeys(parts[key], [key], errors);
    const result = schema.safeParse(key === "query" ? foldQueryCase(schema, parts[key]) : parts[key]);
    if (result.success) parsed[key] = result.data;
    else errors.push(...fieldErrorsOf(result.error, [key]));
  }
  if (errors.length > 0) {
    const hints = route.fieldHints?.(deps) ?? {};
    throw validationError(errors.map((e) => (hints[e.field] ? { ...e, message: `${e.message} (${hints[e.field]})` } : e)));
  }
  return parsed;
}

function requireJson(req: Request): void {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !req.is("application/json")) {
    throw new AppError("unsupported-media-type", "Send the request body as JSON with Content-Type: application/json.");
  }
}

type BodyParser = (req: Request, res: Response) => Promise<void>;

/** "16kb", "1mb": a route's body limit in bytes, read by `bytes` as body-parser reads it (1024-based). */
function limitBytes(limit: string): number {
  const n = bytes.parse(limit);
  if (n === null || !Number.isSafeInteger(n) || n <= 0) throw new Error(`body limit ${limit} is not a size such as 16kb or 1mb`);
  return n;
}

/**
 * JSON body parsing, run inside the pipeline so it comes after authentication and is audited.
 *
 * The common body (a declared length within the limit, not compressed, UTF-8) is read here; any
 * other goes to express.json, which also inflates and decodes. Why: body-parser's general path cost
 * ~0.3 ms of CPU per request in bench/sessions' profile, twice in every session's life.
 */
function jsonBody(limit: string): BodyParser {
  const routeMax = limitBytes(limit);
  const parseAll = express.json({ limit, strict: false });
  // A caller without credentials reads no more than body-limits.ts allows, whatever the route's limit.
  const parseCapped = express.json({ limit: Math.min(routeMax, ANONYMOUS_BODY_LIMIT), strict: false });
  return (req, res) => {
    requireJson(req);
    const capped = res.locals[BODY_CAP] !== undefined;
    const parse = capped ? parseCapped : parseAll;
    const max = capped ? Math.min(routeMax, ANONYMOUS_BODY_LIMIT) : routeMax;
    const length = Number(req.headers["content-length"]);
    const encoding = req.headers["content-encoding"];
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1]?.toLowerCase();
    const plain =
      Number.isSafeInteger(length) && length > 0 && (encoding === undefined || encoding === "identity") && (charset === undefined || charset === "utf-8");
    if (!plain) return new Promise<void>((resolve, reject) => parse(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
    if (length > max) return Promise.reject(new AppError("payload-too-large", `The request body exceeds the limit of ${max} bytes.`));
    return readJson(req, length);
  };
}

/** Reads a body of the declared `length` and parses it into req.body. */
function readJson(req: Request, length: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (err?: AppError) => {
      req.off("data", onData).off("end", onEnd).off("aborted", onAborted).off("error", onAborted);
      if (err) reject(err);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (received !== length) return done(new AppError("malformed-json", "The request body is shorter than its Content-Length."));
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      try {
        (req as Request & { body: unknown }).body = JSON.parse(text);
      } catch {
        return done(new AppError("malformed-json", "The request body is not valid JSON."));
      }
      done();
    };
    const onAborted = () => done(new AppError("malformed-json", "The request body did not arrive whole."));
    req.on("data", onData).once("end", onEnd).once("aborted", onAborted).once("error", onAborted);
  });
}

/** RFC 9745 Deprecation, RFC 8594 Sunset, and the successor; after the sunset the route is gone. */
function deprecation(route: AnyRoute, res: Response, now: Date): void {
  const d = route.deprecated;
  if (!d) return;
  res.setHeader("Deprecation", `@${Math.floor(d.since.getTime() / 1000)}`);
  res.setHeader("Sunset", d.sunset.toUTCString());
  if (d.successor) res.setHeader("Link", `<${d.successor}>; rel="successor-version"`);
  if (now >= d.sunset) {
    throw new AppError("gone", `This operation was retired on ${d.sunset.toUTCString()}.${d.successor ? ` Use ${d.successor}.` : ""}`);
  }
}

export interface RouterOptions {
  context(req: Request, res: Response): ServiceContext;
  users?: UserAuthenticator;
  /** Check every success body against the route's response schema (tests turn this on to catch contract drift). */
  checkResponses?: boolean;
}

/** Streams a file as an attachment that no browser renders or sniffs (its bytes came from the web). */
async function sendFile(res: Response, file: FileReply): Promise<void> {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, "_") || "download";
  res.status(200);
  res.setHeader("Content-Type", file.contentType);
  if (file.size !== null) res.setHeader("Content-Length", String(file.size));
  // RFC 8187: percent-encoded UTF-8, where ' ( ) * are not allowed bare either.
  const encoded = encodeURIComponent(file.name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  res.setHeader("Content-Disposition", `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Content-Security-Policy", "sandbox");
  res.setHeader("Cache-Control", "no-store");
  // Once the headers are out a failure can only cut the answer short; the client sees it cut.
  await pipeline(file.open(), res).catch(() => res.destroy());
}

/** Streams media inline, whole or one range; a player seeks with further ranges. */
async function sendMedia(res: Response, media: MediaReply): Promise<void> {
  const { range, size } = media;
  res.status(range ? 206 : 200);
  res.setHeader("Content-Type", media.contentType);
  res.setHeader("Accept-Ranges", "bytes");
  res.setHeader("Content-Length", String(range ? range.end - range.start + 1 : size));
  if (range) res.setHeader("Content-Range", `bytes ${range.start}-${range.end}/${size}`);
  res.setHeader("Content-Disposition", `inline; filename="${media.name.replace(/[^\x20-\x7e]|["\\]/g, "_")}"`);
  res.setHeader("Content-Security-Policy", "sandbox");
  res.setHeader("Cache-Control", "private, no-store");
  await pipeline(media.open(), res).catch(() => res.destroy());
}

/** Authenticate, limit, audit, then run the handler: the same steps, in the same order, for every route. */
async function run(route: AnyRoute, options: RouterOptions, req: Request, res: Response, body?: BodyParser): Promise<void> {
  const ctx = options.context(req, res);
  if (!route.databaseBudget) return steps(route, options, ctx, req, res, body);
  await Promise.resolve(); // the budget is entered in this call's own async context (db/budget.ts)
  const budget = enterDatabaseBudget(ctx.deps.config.cluster.placementTimeoutMs);
  try {
    return await steps(route, options, ctx, req, res, body);
  } finally {
    budget.end();
  }
}

async function steps(route: AnyRoute, options: RouterOptions, first: ServiceContext, req: Request, res: Response, body?: BodyParser): Promise<void> {
  let ctx = first;
  let call: CallAudit | null = null;
  if (route.auth !== "none") {
    // Refused here (401, 429), a call has no principal: it is audited as a refusal, not as a call.
    const { principal, limitHeaders } = await authenticateRequest(ctx.deps, req, ctx.ip ?? "", {
      acceptUsers: route.auth === "apiKeyOrUser",
      users: options.users,
    });
    // Checking the key's hash (argon2, once per key per process) is this node's CPU, not the database's time.
    restartDatabaseBudget();
    ctx = { ...ctx, principal };
    const slug = typeof req.params.slug === "string" ? req.params.slug : undefined;
    call = {
      action: route.operation.action,
      successStatus: route.status,
      target: (req.params.id ?? req.params.key_id ?? null) as string | null,
      workspaceSlug: slug,
    };
    for (const [name, value] of Object.entries(limitHeaders)) res.setHeader(name, value);
  }
  // The entry is handed to the audit writer (and its journal) before the answer starts, so a client
  // that got an answer can count on its entry surviving a kill -9 (services/audit/audited-call.ts).
  const answer = await auditedCall(ctx, call, (audited) => answerOf(route, options, audited, req, res, body), { answered: statusOf });
  if (answer instanceof MediaReply) return sendMedia(res, answer);
  if (answer instanceof FileReply) return sendFile(res, answer);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  if (answer.status === 204 || answer.body === undefined) res.status(answer.status).end();
  else res.status(answer.status).json(answer.body);
}

/** The status an answer goes out with: a range of media is 206. */
const statusOf = (answer: Reply | MediaReply | FileReply) =>
  answer instanceof MediaReply ? (answer.range ? 206 : 200) : answer instanceof FileReply ? 200 : answer.status;

/** Reads the request and runs the handler: its answer, checked against the route's schema when asked. */
async function answerOf(
  route: AnyRoute,
  options: RouterOptions,
  first: ServiceContext,
  req: Request,
  res: Response,
  body?: BodyParser,
): Promise<Reply | MediaReply | FileReply> {
  deprecation(route, res, first.deps.now());
  if (body) await body(req, res);
  const input = parseInput(route, req, first.deps);
  // The workspace a route names, in its path (`{slug}`, the dashboard's routes) or as `?workspace=` (dashboard
  // users name the one they act in), reaches the services in the context, never as an argument of theirs.
  const named = (input.params as { slug?: string } | undefined)?.slug ?? (input.query as { workspace?: string } | undefined)?.workspace;
  const ctx = actingIn(first, named);
  const result = await route.handler(ctx, input as never, { req, res }, route.operation.run);
  if (result instanceof MediaReply || result instanceof FileReply) return result;
  const reply = result instanceof Reply ? result : new Reply(route.status, result);
  if (options.checkResponses && route.response && reply.status < 300 && reply.status !== 204) {
    const check = route.response.safeParse(reply.body);
    if (!check.success) throw new Error(`${route.operationId}: response breaks its schema: ${check.error.message}`);
  }
  return reply;
}

/** Registers each route of the table, plus a 405 answer for known paths called with another method. */
export function buildRestRouter(routes: readonly AnyRoute[], options: RouterOptions): express.Router {
  const router = express.Router();
  const methodsByPath = new Map<string, string[]>();

  for (const route of routes) {
    const path = toExpressPath(route.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), route.method.toUpperCase()]);
    const body = route.input.body ? jsonBody(route.bodyLimit ?? "1mb") : undefined;
    router[route.method](path, (req: Request, res: Response) => run(route, options, req, res, body));
  }

  for (const [path, methods] of methodsByPath) {
    const allow = [...new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : [])])].join(", ");
    router.all(path, () => {
      throw new AppError("method-not-allowed", `This path accepts ${allow}.`, {}, { Allow: allow });
    });
  }
  return router;
}
