import type { Request, Response } from "express";
import { z } from "zod";
import type { ProblemSlug } from "../errors.ts";
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import type { Operation } from "../kernel/operations.ts";
import { operations } from "../services/operations.ts";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** Zod schemas for each part of the request; each is parsed before the handler runs. */
export interface RouteInput {
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: z.ZodType;
}

export type ParsedInput<I extends RouteInput> = {
  [K in keyof I]: I[K] extends z.ZodType ? z.output<I[K]> : never;
};

/** A handler may return a Reply to choose another documented status or add headers. */
export class Reply<T = unknown> {
  constructor(
    readonly status: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * A file sent as the answer (200, as an attachment named `name`): `application/octet-stream` unless
 * the route made it (a bundle's zip); its size null when it is written as it is sent (chunked).
 */
export class FileReply {
  constructor(
    readonly name: string,
    readonly size: number | null,
    readonly open: () => NodeJS.ReadableStream,
    readonly contentType = "application/octet-stream",
  ) {}
}

/**
 * Media shown inline (a recording in a `<video src>`): the whole (200) or one byte range (206 with
 * `Content-Range`), always with `Accept-Ranges: bytes` so a player can seek. The route declares it
 * with `file: "<content type>"`.
 */
export class MediaReply {
  constructor(
    readonly contentType: string,
    readonly name: string,
    readonly size: number,
    /** The range served (inclusive), or null for the whole. */
    readonly range: { start: number; end: number } | null,
    readonly open: () => NodeJS.ReadableStream,
  ) {}
}

interface RouteFields<I extends RouteInput, R, Op extends Operation> {
  method: HttpMethod;
  /** OpenAPI form: `/v1/sessions/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  input: I;
  /** Success status. */
  status: number;
  /** Success body; omitted for 204. */
  response?: z.ZodType;
  /** The success answer is a file (the handler returns a FileReply), or media of this content type (a MediaReply), rather than JSON. */
  file?: true | string;
  /** Other success statuses the handler may answer with through Reply (for example 200 for a replay). */
  alternatives?: Record<number, { description: string; headers?: Record<string, string> }>;
  /** Problem types this operation can answer with, beyond the ones every route has. */
  problems?: ProblemSlug[];
  /**
   * Who may call: API keys (the default for /v1), keys or dashboard users (the services then decide;
   * keys are refused dashboard-only actions), or anyone (not authenticated, not audited).
   */
  auth?: "apiKey" | "apiKeyOrUser" | "none";
  /** Marks the route deprecated: Deprecation, Sunset and Link headers, then 410 after the sunset. */
  deprecated?: { since: Date; sunset: Date; successor?: string };
  /**
   * The call's database waits, authentication included, share one budget of
   * VESSEL_PLACEMENT_TIMEOUT_MS (db/budget.ts): a create on a node whose database stopped answering
   * is answered 503 within it, even when the key's record must be read first.
   */
  databaseBudget?: true;
  /**
   * Words the deployment adds to a validation message about these fields (`body.region` → the regions
   * it serves): what a schema cannot know, as the values allowed here.
   */
  fieldHints?: (deps: AppDeps) => Record<string, string>;
  /** Largest accepted JSON body (bytes-style string for body-parser); default 1mb. */
  bodyLimit?: string;
  /**
   * The body is `multipart/form-data` with one file in this field (rest/multipart.ts reads it in the
   * handler, streaming): documented as such, and not parsed as JSON.
   */
  multipart?: { field: string; description: string };
  /** Calls `run`, the operation's service function (the one GraphQL calls too), and presents its result. */
  handler(ctx: ServiceContext, input: ParsedInput<I>, http: { req: Request; res: Response }, run: Op["run"]): Promise<R | Reply<R>>;
}

/**
 * A route names the operation it serves (src/services/operations.ts): its id is the route's
 * operationId and the GraphQL root field of the same service function; its action names the audit
 * entries. A route outside the API (tests, benchmarks) may name an operationId instead: one of the
 * catalogue's, or, when it is not authenticated (so never audited), any.
 */
export type Route<I extends RouteInput = RouteInput, R = unknown, Op extends Operation = Operation> = RouteFields<I, R, Op> &
  ({ operation: Op; operationId?: never } | { operationId: string; operation?: never });

export type AnyRoute = RouteFields<RouteInput, unknown, Operation> & { readonly operation: Operation; readonly operationId: string };

/** Keeps each route's handler typed against its own input and operation, then widens it for the table. */
export function defineRoute<I extends RouteInput, R, Op extends Operation>(route: Route<I, R, Op>): AnyRoute {
  const operation: Operation | undefined = route.operation ?? (operations as Record<string, Operation>)[route.operationId!];
  if (!operation && route.auth !== "none")
    throw new Error(`route ${route.path}: ${route.operationId} is no operation of src/services/operations.ts, and only those are audited`);
  const resolved = operation ?? { id: route.operationId!, action: route.operationId!, run: () => undefined };
  return { ...route, operation: resolved, operationId: resolved.id } as unknown as AnyRoute;
}

/** The list envelope of spec 8, named `id` in the OpenAPI components. */
export function listEnvelope<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() }).meta({ id });
}
