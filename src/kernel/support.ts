import type { z } from "zod";
import { AppError, validationError } from "../errors.ts";
import type { Database } from "../db/client.ts";
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import type { ServiceContext } from "./context.ts";
import { fieldErrorsOf } from "./zod-issues.ts";

/** What a service needs to reach the database: a request's context, or the database itself (scripts). */
export type DbSource = ServiceContext | Pick<Database, "prisma">;

export function prismaOf(source: DbSource): PrismaClient {
  return "deps" in source ? source.deps.db.prisma : source.prisma;
}

/**
 * One of the statements on every session's path, answering its rows: on the embedded database run
 * directly (Database.direct says why), on PostgreSQL through Prisma.
 */
export async function queryStatement<T>(db: Pick<Database, "prisma" | "direct">, sql: Prisma.Sql): Promise<T[]> {
  return db.direct ? ((await db.direct(sql)).rows as T[]) : db.prisma.$queryRaw<T[]>(sql);
}

/** The same for a statement that answers no rows: how many it changed. */
export async function executeStatement(db: Pick<Database, "prisma" | "direct">, sql: Prisma.Sql): Promise<number> {
  return db.direct ? (await db.direct(sql)).affectedRows : db.prisma.$executeRaw(sql);
}

/** The Prisma error code of `err` (P2002 unique violation, P2003 foreign key, P2025 not found…), if any. */
export function prismaErrorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  const code = (err as { code: unknown }).code;
  return typeof code === "string" && /^P\d{4}$/.test(code) ? code : undefined;
}

/**
 * Runs a write and turns a unique-constraint violation into AppError("conflict") with the caller's
 * wording, so neither the constraint nor the column name reaches the client.
 */
export async function conflictOnDuplicate<T>(write: () => Promise<T>, detail: string): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (prismaErrorCode(err) === "P2002") throw new AppError("conflict", detail);
    throw err;
  }
}

/**
 * Validates a service's input with its zod schema; every problem becomes one FieldError, named by
 * its path in the input (`label`, `slug`), and together they make one AppError("validation-failed").
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(fieldErrorsOf(result.error));
}
