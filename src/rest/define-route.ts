import type { Request, Response } from "express";
import { z } from "zod";
import type { ProblemSlug } from "../kernel/errors.ts";
import type { ServiceContext } from "../kernel/context.ts";

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

/** A file sent as the answer (200, `application/octet-stream`, as an attachment named `name`). */
export class FileReply {
  constructor(
    readonly name: string,
    readonly size: number,
    readonly open: () => NodeJS.ReadableStream,
  ) {}
}

export interface Route<I extends RouteInput = RouteInput, R = unknown> {
  method: HttpMethod;
  /** OpenAPI form: `/v1/sessions/{id}`. */
  path: string;
  /** Equals the GraphQL root field that exposes the same service function. */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  input: I;
  /** Success status. */
  status: number;
  /** Success body; omitted for 204. */
  response?: z.ZodType;
  /** The success answer is a file (the handler returns a FileReply) rather than JSON. */
  file?: true;
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
  /** Largest accepted JSON body (bytes-style string for body-parser); default 1mb. */
  bodyLimit?: string;
  handler(ctx: ServiceContext, input: ParsedInput<I>, http: { req: Request; res: Response }): Promise<R | Reply<R>>;
}

export type AnyRoute = Route<RouteInput, unknown>;

/** Keeps each route's handler typed against its own input, then widens it for the table. */
export function defineRoute<I extends RouteInput, R>(route: Route<I, R>): AnyRoute {
  return route as unknown as AnyRoute;
}

/** The list envelope of spec 8, named `id` in the OpenAPI components. */
export function listEnvelope<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() }).meta({ id });
}
