import { ulid } from "ulid";
import { describe, expect, test } from "vitest";
import { AppError } from "../../src/errors.ts";
import { PageQuery, decodeCursor, encodeCursor, isPlausibleId, pageOf, pageWindow, paginate, parseQuery } from "../../src/kernel/pagination.ts";
import { toPageDto } from "../../src/rest/presenters/page.ts";
import { thrownAppError } from "../support/errors.ts";

function fields(err: AppError): string[] {
  return (err.extensions.errors as { field: string }[]).map((e) => e.field);
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64url");

describe("cursors", () => {
  test("round-trip plain and prefixed ULIDs", () => {
    for (const id of [ulid(), `ses_${ulid()}`, `prof_${ulid()}`, "01ARZ3NDEKTSV4RRFFQ69G5FAV"]) {
      const cursor = encodeCursor(id);
      expect(decodeCursor(cursor)).toBe(id);
    }
  });

  test("are URL-safe base64 of a versioned JSON document, not the bare id", () => {
    const id = ulid();
    const cursor = encodeCursor(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain(id);
    expect(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))).toEqual({ v: 1, after: id });
  });

  test.each([
    ["not base64url", "abc$%!"],
    ["base64 with padding", `${b64(JSON.stringify({ v: 1, after: ulid() }))}==`],
    ["not JSON", b64("hello")],
    ["a JSON array", b64(JSON.stringify([1, ulid()]))],
    ["JSON null", b64("null")],
    ["an unknown version", b64(JSON.stringify({ v: 2, after: ulid() }))],
    ["no id", b64(JSON.stringify({ v: 1 }))],
    ["a numeric id", b64(JSON.stringify({ v: 1, after: 42 }))],
    ["an id that is not a ULID", b64(JSON.stringify({ v: 1, after: "hello" }))],
    ["a lower-case ULID", b64(JSON.stringify({ v: 1, after: ulid().toLowerCase() }))],
    ["a ULID beyond the year 10889", b64(JSON.stringify({ v: 1, after: `8${ulid().slice(1)}` }))],
    ["an SQL-ish id", b64(JSON.stringify({ v: 1, after: "' OR 1=1 --" }))],
    ["an empty string", ""],
    ["something huge", "A".repeat(10_000)],
  ])("decoding %s → validation-failed on query.cursor", (_name, cursor) => {
    const err = thrownAppError(() => decodeCursor(cursor));
    expect(err.slug).toBe("validation-failed");
    expect(err.status).toBe(400);
    expect(fields(err)).toEqual(["query.cursor"]);
  });

  test("isPlausibleId accepts ULIDs with an optional short prefix only", () => {
    const id = ulid();
    expect(isPlausibleId(id)).toBe(true);
    expect(isPlausibleId(`ses_${id}`)).toBe(true);
    expect(isPlausibleId(`vs_${id}`)).toBe(true);
    expect(isPlausibleId(`${id}x`)).toBe(false);
    expect(isPlausibleId(id.slice(1))).toBe(false);
    expect(isPlausibleId(`SES_${id}`)).toBe(false);
    expect(isPlausibleId(`toolongprefix_${id}`)).toBe(false);
    expect(isPlausibleId(id.replace(/.$/, "U"))).toBe(false); // U is not Crockford base32
  });
});

describe("pageOf", () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `01ARZ3NDEKTSV4RRFFQ69G5F${String(i).padStart(2, "0")}` }));

  test("limit + 1 rows: limit items, hasMore, a cursor after the last item", () => {
    const fetched = rows(21);
    const page = pageOf(fetched, 20);
    expect(page.items).toEqual(fetched.slice(0, 20));
    expect(page.hasMore).toBe(true);
    expect(page.nextCursor).not.toBeNull();
    expect(decodeCursor(page.nextCursor!)).toBe(fetched[19]!.id);
  });

  test("exactly limit rows: the last page, no cursor", () => {
    const page = pageOf(rows(20), 20);
    expect(page.items).toHaveLength(20);
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
  });

  test("fewer rows, and none", () => {
    expect(pageOf(rows(3), 20)).toEqual({ items: rows(3), hasMore: false, nextCursor: null });
    expect(pageOf([], 5)).toEqual({ items: [], hasMore: false, nextCursor: null });
  });

  test("limit 1", () => {
    const page = pageOf(rows(2), 1);
    expect(page.items).toEqual(rows(1));
    expect(decodeCursor(page.nextCursor!)).toBe(rows(1)[0]!.id);
  });

  test("toPageDto gives the wire names", () => {
    const page = pageOf(rows(3), 2);
    expect(toPageDto(page, (r) => r.id)).toEqual({ items: [rows(1)[0]!.id, rows(2)[1]!.id], next_cursor: page.nextCursor, has_more: true });
  });
});

describe("pageWindow and paginate", () => {
  const id = ulid();

  test("first page: no id condition, limit + 1 rows in the chosen direction", () => {
    expect(pageWindow({ limit: 20 }, "desc")).toEqual({ idAfter: undefined, orderBy: { id: "desc" }, take: 21 });
    expect(pageWindow({ limit: 5, cursor: undefined }, "asc")).toEqual({ idAfter: undefined, orderBy: { id: "asc" }, take: 6 });
  });

  test("later pages continue strictly after the cursor's id: lt when newest first, gt when oldest first", () => {
    expect(pageWindow({ limit: 20, cursor: encodeCursor(id) }, "desc")).toEqual({ idAfter: { lt: id }, orderBy: { id: "desc" }, take: 21 });
    expect(pageWindow({ limit: 20, cursor: encodeCursor(id) }, "asc")).toEqual({ idAfter: { gt: id }, orderBy: { id: "asc" }, take: 21 });
  });

  test("a bad cursor is refused before any query", async () => {
    let fetched = false;
    const err = await paginate({ limit: 3, cursor: "nope!" }, "asc", async () => {
      fetched = true;
      return [];
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(fields(err as AppError)).toEqual(["query.cursor"]);
    expect(fetched).toBe(false);
  });

  test("paginate walks an in-memory list in both directions with no gaps or repeats", async () => {
    const all = Array.from({ length: 45 }, () => ({ id: ulid() })).sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const direction of ["asc", "desc"] as const) {
      const fetch = async (w: ReturnType<typeof pageWindow>) => {
        const sorted = direction === "asc" ? all : [...all].reverse();
        const after = w.idAfter;
        const rest = sorted.filter((r) => (after === undefined ? true : "lt" in after ? r.id < after.lt : r.id > after.gt));
        return rest.slice(0, w.take);
      };
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await paginate({ limit: 20, cursor }, direction, fetch);
        sizes.push(page.items.length);
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(sizes).toEqual([20, 20, 5]);
      expect(seen).toEqual((direction === "asc" ? all : [...all].reverse()).map((r) => r.id));
    }
  });
});

describe("PageQuery", () => {
  test("defaults: limit 20, no cursor; numeric strings are accepted (query strings are text)", () => {
    expect(PageQuery.parse({})).toEqual({ limit: 20 });
    expect(PageQuery.parse({ limit: "1" })).toEqual({ limit: 1 });
    expect(PageQuery.parse({ limit: "100" })).toEqual({ limit: 100 });
    expect(PageQuery.parse({ limit: 7 }).limit).toBe(7);
    const cursor = encodeCursor(ulid());
    expect(PageQuery.parse({ cursor }).cursor).toBe(cursor);
  });

  test.each([["0"], ["101"], ["x"], ["1.5"], ["-3"], [""], [["1", "2"]], ["Infinity"]])("limit %j → query.limit", (limit) => {
    const err = thrownAppError(() => parseQuery(PageQuery, { limit }));
    expect(err.slug).toBe("validation-failed");
    expect(fields(err)).toEqual(["query.limit"]);
    expect((err.extensions.errors as { message: string }[])[0]!.message).toBe("must be a whole number from 1 to 100");
  });

  test.each([["garbage"], [""], [["a", "b"]], [b64(JSON.stringify({ v: 1, after: "x" }))]])("cursor %j → query.cursor", (cursor) => {
    const err = thrownAppError(() => parseQuery(PageQuery, { cursor }));
    expect(fields(err)).toEqual(["query.cursor"]);
  });

  test("several problems are reported together", () => {
    const err = thrownAppError(() => parseQuery(PageQuery, { limit: "0", cursor: "bad" }));
    expect(fields(err).sort()).toEqual(["query.cursor", "query.limit"]);
  });
});
