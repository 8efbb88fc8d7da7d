import { describe, expect, it } from "vitest";
import { isDataException, isRefusedContent, refusalOf, sqlStateOf } from "../../src/kernel/set-aside.ts";
import { escapeUnstorable, escapeUnstorableDeep, hasUnstorableText } from "../../src/kernel/stored-text.ts";

/**
 * The two small rules under every batch writer (kernel/set-aside.ts, kernel/stored-text.ts). The
 * errors are shaped as PGlite, pg and Prisma's driver adapter throw them (integration tests throw
 * the real ones: audit.test.ts, session-logs.test.ts, session-statements.test.ts).
 */
describe("text the database cannot store", () => {
  it("finds NUL and lone surrogates, and leaves pairs and ordinary text alone", () => {
    expect(["x\u0000", "\uD800", "a\uDC00", "\uDBFF\uDBFF\uDC00"].map(hasUnstorableText)).toEqual([true, true, true, true]);
    expect(["", "plain", "ünïcödé", "\uD83D\uDE00", "\\u0000"].map(hasUnstorableText)).toEqual([false, false, false, false, false]);
  });

  it("escapes them as \\uXXXX, and returns the very string when there is nothing to escape", () => {
    expect(escapeUnstorable("x\u0000y\uD800z\uDC01 \uD83D\uDE00")).toBe("x\\u0000y\\uD800z\\uDC01 \uD83D\uDE00");
    const plain = "nothing to see";
    expect(escapeUnstorable(plain)).toBe(plain);
  });

  it("escapes every string of a JSON value, keys included, and says whether anything changed", () => {
    const data = { method: "Page.\u0000", list: ["ok", "\uD800"], ["k\u0000"]: { n: 1, deep: "\uDFFF" } };
    expect(escapeUnstorableDeep(data)).toEqual({
      changed: true,
      value: { method: "Page.\\u0000", list: ["ok", "\\uD800"], ["k\\u0000"]: { n: 1, deep: "\\uDFFF" } },
    });
    const clean = { a: "b", n: [1, 2] };
    expect(escapeUnstorableDeep(clean).value).toBe(clean);
    expect(escapeUnstorableDeep(clean).changed).toBe(false);
  });
});

describe("refused for its content, or not", () => {
  const prismaRaw = (sqlState: string, code = "P2010") =>
    Object.assign(new Error("Raw query failed."), {
      name: "PrismaClientKnownRequestError",
      code,
      meta: { driverAdapterError: { name: "DriverAdapterError", cause: { originalCode: sqlState, originalMessage: `refused ${sqlState}`, kind: "postgres" } } },
    });
  const direct = (code: string) => Object.assign(new Error(`direct ${code}`), { code });

  it("reads the SQLSTATE however it came, never a Prisma code as one", () => {
    expect(sqlStateOf(prismaRaw("22021"))).toBe("22021");
    expect(sqlStateOf(direct("22P05"))).toBe("22P05");
    expect(sqlStateOf(new Error("wrapped", { cause: direct("23503") }))).toBe("23503");
    expect(sqlStateOf(Object.assign(new Error("no driver cause"), { name: "PrismaClientKnownRequestError", code: "P2025" }))).toBeUndefined();
  });

  it("data exceptions are split at once; integrity errors are content too; the rest is retried", () => {
    for (const err of [
      prismaRaw("22021"),
      prismaRaw("22003", "P2020"),
      direct("22P05"),
      Object.assign(new Error("bad"), { name: "PrismaClientValidationError" }),
    ]) {
      expect([isDataException(err), isRefusedContent(err)]).toEqual([true, true]);
    }
    for (const err of [prismaRaw("23503"), direct("23502"), Object.assign(new Error("fk"), { code: "P2003" })]) {
      expect([isDataException(err), isRefusedContent(err)]).toEqual([false, true]);
    }
    // Connection, lock/serialization, a timeout, a missing table, anything else: not the entry's fault.
    for (const err of [direct("08006"), prismaRaw("40001"), direct("57014"), prismaRaw("42P01"), new Error("ECONNREFUSED")]) {
      expect([isDataException(err), isRefusedContent(err)]).toEqual([false, false]);
    }
  });

  it("says why in a few words, cut short", () => {
    expect(refusalOf(prismaRaw("22021"))).toEqual({ code: "22021", reason: "refused 22021" });
    expect(refusalOf(direct("22001".padEnd(5)))).toEqual({ code: "22001", reason: "direct 22001" });
    expect(refusalOf(new Error("x".repeat(500))).reason).toHaveLength(161);
  });
});
