import { type Page } from "../../kernel/pagination.ts";

/** The wire form of a page (spec §8): `{ items, next_cursor, has_more }`. */
export function toPageDto<T, D>(page: Page<T>, map: (item: T) => D): { items: D[]; next_cursor: string | null; has_more: boolean } {
  return { items: page.items.map(map), next_cursor: page.nextCursor, has_more: page.hasMore };
}
