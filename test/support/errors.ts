import { expect } from "vitest";
import { AppError } from "../../src/kernel/errors.ts";

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
