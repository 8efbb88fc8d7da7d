import express, { type Request, type Response } from "express";
import type { z } from "zod";
import { AppError, validationError, type FieldError } from "../errors.ts";
import type { ServiceContext } from "../services/context.ts";
import { Reply, type AnyRoute, type RouteInput } from "./route.ts";

/** `/v1/sessions/{id}:keepalive` → `/v1/sessions/:id\:keepalive` (a literal colon must be escaped in Express 5). */
export function toExpressPath(path: string): string {
  return path.replaceAll(":", "\\:").replace(/\{(\w+)\}/g, ":$1");
}

function issuesOf(where: string, error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({
    field: [where, ...i.path.map(String)].join("."),
    message: i.message,
  }));
}

/** Parses every declared part of the request and reports all problems together. */
function parseInput(route: AnyRoute, req: Request): Record<string, unknown> {
  const parts: Record<keyof RouteInput, unknown> = { params: req.params, query: req.query, headers: req.headers, body: req.body };
  const parsed: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const key of ["params", "query", "headers", "body"] as const) {
    const schema = route.input[key];
    if (!schema) continue;
    const result = schema.safeParse(parts[key]);
    if (result.success) parsed[key] = result.data;
    else errors.push(...issuesOf(key, result.error));
  }
  if (errors.length > 0) throw validationError(errors);
  return parsed;
}

function requireJson(req: Request): void {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !req.is("application/json")) {
    throw new AppError("unsupported-media-type", "Send the request body as JSON with Content-Type: application/json.");
  }
}

export interface RouterOptions {
  context(req: Request, res: Response): ServiceContext;
  /** Check every success body against the route's response schema (tests turn this on to catch contract drift). */
  checkResponses?: boolean;
}

/** Registers each route of the table, plus a 405 answer for known paths called with another method. */
export function buildRestRouter(routes: readonly AnyRoute[], options: RouterOptions): express.Router {
  const router = express.Router();
  const methodsByPath = new Map<string, string[]>();

  for (const route of routes) {
    const path = toExpressPath(route.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), route.method.toUpperCase()]);
    const middleware = route.input.body
      ? [
          (req: Request, _res: Response, next: (err?: unknown) => void) => { try { requireJson(req); next(); } catch (e) { next(e); } },
          express.json({ limit: route.bodyLimit ?? "1mb", strict: false }),
        ]
      : [];
    router[route.method](path, ...middleware, async (req: Request, res: Response) => {
      const input = parseInput(route, req);
      const result = await route.handler(options.context(req, res), input as never, { req, res });
      const reply = result instanceof Reply ? result : new Reply(route.status, result);
      if (options.checkResponses && route.response && reply.status < 300 && reply.status !== 204) {
        const check = route.response.safeParse(reply.body);
        if (!check.success) throw new Error(`${route.operationId}: response breaks its schema: ${check.error.message}`);
      }
      for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
      if (reply.status === 204 || reply.body === undefined) res.status(reply.status).end();
      else res.status(reply.status).json(reply.body);
    });
  }

  for (const [path, methods] of methodsByPath) {
    const allow = [...new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : [])])].join(", ");
    router.all(path, () => {
      throw new AppError("method-not-allowed", `This path accepts ${allow}.`, {}, { Allow: allow });
    });
  }
  return router;
}
