import SchemaBuilder from "@pothos/core";
import type { ServiceContext } from "../kernel/context.ts";

/** The HTTP request and response of a GraphQL call: cookies in and out (the dashboard's sign-in). */
export interface HttpExchange {
  cookie(name: string): string | undefined;
  /** Adds a `Set-Cookie` to the response. */
  setCookie(value: string): void;
  userAgent: string | undefined;
}

export interface GraphQLContext {
  services: ServiceContext;
  /** Present over HTTP; absent over WebSocket, which cannot set cookies. */
  http?: HttpExchange;
  /**
   * Calls of the caller's budget already spent for this operation: over HTTP, the one its
   * authentication spent, which pays for the first root field (graphql/audited.ts).
   */
  calls?: { prepaid: number };
}

/** Plugins and configuration only; types live in ./types/<domain>.ts next to their root fields. */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
});

builder.queryType({});
builder.mutationType({});

builder.scalarType("DateTime", {
  description: "An ISO 8601 date and time in UTC.",
  serialize: (d) => d.toISOString(),
  parseValue: (v) => {
    const d = typeof v === "string" ? new Date(v) : new Date(Number.NaN);
    if (Number.isNaN(d.getTime())) throw new TypeError("DateTime must be an ISO 8601 string");
    return d;
  },
});
