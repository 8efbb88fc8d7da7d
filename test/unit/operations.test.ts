import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/db/errors.ts";
import { deadlineMessage } from "../../src/db/pg-timeouts.ts";
import { createLogger, safeUrl } from "../../src/logger.ts";
import { toAppError } from "../../src/kernel/problems.ts";

describe("database outages map to 503", () => {
  it("recognises Prisma's and the pg adapter's connection failures, and nothing else", () => {
    const unreachable = Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), { code: "P1001" });
    const adapter = Object.assign(new Error("Raw query failed."), {
      code: "P2010",
      meta: { driverAdapterError: { name: "DriverAdapterError", cause: { kind: "DatabaseNotReachable" } } },
    });
    const closed = Object.assign(new Error("x"), { code: "P2010", meta: { driverAdapterError: { cause: { kind: "ConnectionClosed" } } } });
    const shutdown = Object.assign(new Error("x"), { meta: { driverAdapterError: { cause: { kind: "postgres", code: "57P01" } } } });
    const timeout = new Error("Connection terminated due to connection timeout");
    const wrapped = new Error("outer", { cause: new Error("Connection terminated unexpectedly") });
    // A database that is there but does not answer in time (src/db/pg-timeouts.ts).
    const cancelled = Object.assign(new Error("x"), { meta: { driverAdapterError: { cause: { kind: "postgres", code: "57014" } } } });
    const deadline = new Error(deadlineMessage);
    const poolWait = new Error("timeout exceeded when trying to connect");
    const noStart = Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), { code: "P2028" });
    const expired = Object.assign(
      new Error("Transaction already closed: A query cannot be executed on an expired transaction. The timeout for this transaction was 5000 ms"),
      { code: "P2028" },
    );
    for (const err of [unreachable, adapter, closed, shutdown, timeout, wrapped, cancelled, deadline, poolWait, noStart, expired]) {
      expect(isDatabaseUnavailable(err), String(err)).toBe(true);
      const { error, unexpected } = toAppError(err);
      expect(unexpected).toBe(false);
      expect(error.slug).toBe("service-unavailable");
      expect(error.headers["Retry-After"]).toBeTruthy();
    }
    const unique = Object.assign(new Error("Unique constraint failed"), { code: "P2002" });
    const syntax = Object.assign(new Error("x"), { meta: { driverAdapterError: { cause: { kind: "postgres", code: "42601" } } } });
    // Other transaction errors are bugs, not outages.
    const misuse = Object.assign(new Error("Transaction API error: Transaction not found."), { code: "P2028" });
    for (const err of [unique, syntax, misuse, new Error("boom"), null, "text"]) expect(isDatabaseUnavailable(err)).toBe(false);
    expect(toAppError(unique).unexpected).toBe(true);
  });
});

describe("logs", () => {
  it("never carry credentials, wherever a call site puts them", () => {
    const lines: string[] = [];
    const log = createLogger("info", new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const secrets = ["vs_01ARZ3NDEKTSV4RRFFQ69G5FAV.abcdefghijklmnopqrstuvwxyzABCDEF", "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJzZXNfMSJ9.c2ln", "hunter2-password"];
    log.info({ token: secrets[1], authorization: `Bearer ${secrets[0]}`, password: secrets[2] }, "top level");
    log.info({ req: { headers: { authorization: `Bearer ${secrets[0]}`, cookie: `vs_at=${secrets[1]}` } } }, "request");
    log.info({ session: { connectUrl: `ws://h/cdp?token=${secrets[1]}`, live_view_url: `http://h/?token=${secrets[1]}` } }, "nested");
    log.info({ headers: { authorization: `Bearer ${secrets[0]}` } }, "headers");
    log.info({ url: safeUrl(`/cdp?token=${secrets[1]}&x=1`) }, "url");
    const all = lines.join("");
    for (const s of secrets) expect(all).not.toContain(s);
    expect(all).toContain("[redacted]");
    expect(all).toContain("x=1");
  });
});
