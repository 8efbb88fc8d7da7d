/**
 * Cursor pagination shared by every list endpoint (sessions, profiles, API keys, audit log).
 *
 * Spec §8: lists take `limit` and an opaque `cursor`, answer `items`, `next_cursor`, `has_more`, and
 * sort by ULID so cursors stay stable across inserts. A cursor names the last id of the page it came
 * from; the next page is "ids strictly after it" in the list's direction. Because ids are never
 * reused, a row inserted between two page fetches can neither shift a page nor show up twice: in a
 * newest-first list it sorts before page one, in an oldest-first list it appears on a later page.
 *
 * The cursor is base64url of a small versioned JSON document (`{"v":1,"after":"<id>"}`) so its shape
 * can change later without breaking cursors clients hold. Clients must not parse it.
 */
import { z } from "zod";
import { validationError } from "../errors.ts";
import { fieldErrorsOf } from "./zod-issues.ts";

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

const CURSOR_VERSION = 1;
/** Generous: a cursor for a 40-character id is about 60 characters. */
const MAX_CURSOR_LENGTH = 256;
const CURSOR_FIELD = "query.cursor";
const BAD_CURSOR = "is not a valid cursor: pass the next_cursor of the previous page unchanged, or omit it for the first page";

/**
 * A plausible row id: a ULID (26 characters of upper-case Crockford base32, first character 0–7),
 * optionally behind a short lower-case type prefix such as `ses_` or `prof_`.
 */
export const PLAUSIBLE_ID = /^(?:[a-z]{1,8}_)?[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

export function isPlausibleId(value: string): boolean {
  return PLAUSIBLE_ID.test(value);
}

const limitMessage = `must be a whole number from 1 to ${MAX_PAGE_LIMIT}`;

/** `?limit=&cursor=`: the query of every list endpoint. Extend it with the list's own filters. */
export const PageQuery = z.object({
  limit: z.coerce
    .number({ error: limitMessage })
    .int(limitMessage)
    .min(1, limitMessage)
    .max(MAX_PAGE_LIMIT, limitMessage)
    .default(DEFAULT_PAGE_LIMIT)
    .describe(`How many items to return, 1–${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}).`),
  cursor: z
    .string({ error: "must be a string" })
    .min(1, { error: "cannot be empty; omit it for the first page", abort: true })
    .max(MAX_CURSOR_LENGTH, { error: BAD_CURSOR, abort: true })
    .refine((c) => readCursor(c) !== undefined, BAD_CURSOR)
    .optional()
    .describe("Opaque: the `next_cursor` of the previous page. Omit it for the first page."),
});

export type PageParams = z.output<typeof PageQuery>;

export interface Page<T> {
  items: T[];
  /** Present exactly when hasMore is true: pass it as `cursor` to get the next page. */
  nextCursor: string | null;
  hasMore: boolean;
}

/** "asc": oldest first (sessions); "desc": newest first (audit log). */
export type SortDirection = "asc" | "desc";

/** The opaque cursor that continues a list after the row with this id. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, after: lastId }), "utf8").toString("base64url");
}

/**
 * The id a cursor continues after. Anything this server did not issue (bad base64url, not JSON,
 * unknown version, an id that is not a plausible id) → AppError("validation-failed") on `query.cursor`.
 */
export function decodeCursor(cursor: string): string {
  const id = readCursor(cursor);
  if (id === undefined) throw validationError([{ field: CURSOR_FIELD, message: BAD_CURSOR }]);
  return id;
}

function readCursor(cursor: string): string | undefined {
  // Node's base64url decoder skips characters outside the alphabet, so check the alphabet first.
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return undefined;
  const { v, after } = doc as { v?: unknown; after?: unknown };
  if (v !== CURSOR_VERSION || typeof after !== "string" || !isPlausibleId(after)) return undefined;
  return after;
}

/**
 * Turns the `limit + 1` rows a query fetched into a page: at most `limit` items, and a cursor after
 * the last item when the extra row shows there is more.
 */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items, hasMore, nextCursor: hasMore && last ? encodeCursor(last.id) : null };
}

export interface PageWindow {
  /** Put under `where.id` (merge with other id conditions); undefined on the first page. */
  idAfter: { lt: string } | { gt: string } | undefined;
  orderBy: { id: SortDirection };
  /** limit + 1: the extra row tells whether there is a next page. */
  take: number;
}

/** The Prisma pieces of one page's query: `findMany({ where: { …, id: w.idAfter }, orderBy: w.orderBy, take: w.take })`. */
export function pageWindow(q: { limit: number; cursor?: string | undefined }, direction: SortDirection): PageWindow {
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  return {
    idAfter: after === undefined ? undefined : direction === "desc" ? { lt: after } : { gt: after },
    orderBy: { id: direction },
    take: q.limit + 1,
  };
}

/** One page of a list ordered by id: `fetch` runs the query with the window (it must use all three parts). */
export async function paginate<T extends { id: string }>(
  q: { limit: number; cursor?: string | undefined },
  direction: SortDirection,
  fetch: (window: PageWindow) => Promise<T[]>,
): Promise<Page<T>> {
  return pageOf(await fetch(pageWindow(q, direction)), q.limit);
}

/**
 * Parses a list's query string with its schema, naming each problem `query.<field>` as the REST
 * layer does, so a service called from elsewhere reports the same fields.
 */
export function parseQuery<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(fieldErrorsOf(result.error, ["query"]));
}
