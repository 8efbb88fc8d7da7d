/** Every item of a cursor-paginated list, fetching page after page as the caller iterates. */
export async function* allPages<T>(page: (cursor?: string) => Promise<{ items: T[]; has_more: boolean; next_cursor: string | null }>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const current = await page(cursor);
    yield* current.items;
    cursor = current.has_more && current.next_cursor ? current.next_cursor : undefined;
  } while (cursor);
}
