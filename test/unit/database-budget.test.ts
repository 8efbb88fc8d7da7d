import { describe, expect, it } from "vitest";
import { databaseBudgetLeft, enterDatabaseBudget } from "../../src/db/budget.ts";

/**
 * A budget is entered without a callback (db/budget.ts): after an await of the function's own, for
 * the rest of that function and what it awaits, and not for its caller.
 */
async function budgeted<T>(ms: number, work: () => Promise<T>): Promise<{ at: number | undefined; result: T }> {
  await Promise.resolve();
  const budget = enterDatabaseBudget(ms);
  try {
    return { at: databaseBudgetLeft(), result: await work() };
  } finally {
    budget.end();
  }
}

const deep = async () => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  await Promise.resolve();
  return databaseBudgetLeft();
};

describe("enterDatabaseBudget", () => {
  it("bounds what the function awaits, however deep, and leaves the caller's context as it was", async () => {
    expect(databaseBudgetLeft()).toBeUndefined();
    const call = budgeted(60_000, deep);
    // The caller, before and after the call is answered, is outside any budget.
    expect(databaseBudgetLeft()).toBeUndefined();
    const { at, result } = await call;
    expect(at).toBeGreaterThan(0);
    expect(result).toBeGreaterThan(0);
    expect(result).toBeLessThanOrEqual(60_000);
    expect(databaseBudgetLeft()).toBeUndefined();
    await Promise.resolve();
    expect(databaseBudgetLeft()).toBeUndefined();
  });

  it("entered before an own await, it would stay in the caller's context (why the rule)", async () => {
    const careless = async () => {
      enterDatabaseBudget(60_000);
    };
    // In a context of its own (a timer's), so that this test's stays clean.
    const leaked = await new Promise<number | undefined>((resolve) =>
      setTimeout(async () => {
        await careless();
        resolve(databaseBudgetLeft());
      }, 0),
    );
    expect(leaked).toBeGreaterThan(0);
    expect(databaseBudgetLeft()).toBeUndefined();
  });

  it("ends with the call: work started inside and running past it sees no budget", async () => {
    let later: Promise<number | undefined> = Promise.resolve(0);
    await budgeted(60_000, async () => {
      later = new Promise((resolve) => setTimeout(() => resolve(databaseBudgetLeft()), 5));
    });
    expect(await later).toBeUndefined();
  });

  it("inside a running budget joins it: the inner end leaves the outer one running", async () => {
    const { result } = await budgeted(60_000, async () => {
      const inner = await budgeted(10, async () => databaseBudgetLeft());
      return { inner: inner.result, after: databaseBudgetLeft() };
    });
    // The outer budget's 60 s, not the inner 10 ms.
    expect(result.inner).toBeGreaterThan(10);
    expect(result.after).toBeGreaterThan(10);
  });
});
