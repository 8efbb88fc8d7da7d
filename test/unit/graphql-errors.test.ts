import { GraphQLError } from "graphql";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.ts";
import { maskError } from "../../src/graphql/errors.ts";

describe("GraphQL error masking", () => {
  it("exposes expected errors with a stable code", () => {
    const wrapped = new GraphQLError("x", { originalError: new AppError("unknown-region", "No region called mars-1."), path: ["createSession"] });
    const out = maskError(wrapped, "Unexpected error.") as GraphQLError;
    expect(out.message).toBe("No region called mars-1.");
    expect(out.extensions).toMatchObject({ code: "UNKNOWN_REGION", status: 422 });
    expect(out.path).toEqual(["createSession"]);
  });

  it("answers an outage as REST does: HTTP 503 with Retry-After (Yoga reads extensions.http)", () => {
    const down = Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), { code: "P1001" });
    const out = maskError(new GraphQLError("x", { originalError: down }), "Unexpected error.") as GraphQLError;
    expect(out.extensions).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, http: { status: 503, headers: { "Retry-After": "2" } } });
    // Other expected errors keep Yoga's usual answer.
    const other = maskError(new GraphQLError("x", { originalError: new AppError("not-found", "No.") }), "Unexpected error.") as GraphQLError;
    expect(other.extensions.http).toBeUndefined();
  });

  it("answers a value of the wrong type for a variable as the caller's mistake (was INTERNAL_SERVER_ERROR)", () => {
    const inner = new GraphQLError("String cannot represent a non string value: 42");
    const out = maskError(
      new GraphQLError('Variable "$workspace" got invalid value 42; String cannot represent a non string value: 42', { originalError: inner }),
      "Unexpected error.",
    ) as GraphQLError;
    expect(out.message).toMatch(/^Variable "\$workspace" got invalid value 42/);
    expect(out.extensions).toMatchObject({ code: "VALIDATION_FAILED", status: 400 });
  });

  it("masks unexpected errors completely", () => {
    const leak = new Error('duplicate key value violates unique constraint "api_keys_prefix_key" at /src/x.ts:1:1');
    const out = maskError(new GraphQLError(leak.message, { originalError: leak }), "Unexpected error.") as GraphQLError;
    expect(out.message).toBe("Unexpected error.");
    expect(out.extensions).toEqual({ code: "INTERNAL_SERVER_ERROR" });
    expect(JSON.stringify(out.toJSON())).not.toMatch(/api_keys|\.ts:/);
  });
});
