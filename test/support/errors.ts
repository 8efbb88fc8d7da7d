import { expect } from "vitest";
import { BrowserPoolError } from "../../src/browser/pool/errors.ts";
import { AppError } from "../../src/errors.ts";
import { browserProblem } from "../../src/kernel/problems.ts";

/** The AppError a promise rejects with (fails the test when it resolves or rejects with something else). */
export async function appError(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/** The AppError `fn` throws (fails the test when it returns or throws something else). */
export function thrownAppError(fn: () => unknown): AppError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(AppError);
  return caught as AppError;
}

/**
 * The problem a client is answered with when the pool refuses (fails the test when `promise` resolves
 * or rejects with anything but one of the browser layer's own errors, which carry no HTTP).
 */
export async function poolProblem(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrowserPoolError);
  return browserProblem(err)!;
}
