import { z } from "zod";

/**
 * The one reader of comma-separated lists: settings (`VESSEL_REGIONS=a, b`), query filters
 * (`?type=a,b`), and the list-valued HTTP fields (`Connection`, `X-Forwarded-For`,
 * `Sec-WebSocket-Protocol`). Each item is trimmed. Empty items are kept unless `dropEmpty`: a
 * setting or a header with an empty item is refused or walked by its reader, a filter skips it.
 * A leaf under src/ so that every layer (auth, browser, services, configuration) may import it.
 */
export function commaList(text: string, opts: { dropEmpty?: boolean } = {}): string[] {
  const items = text.split(",").map((item) => item.trim());
  return opts.dropEmpty ? items.filter((item) => item !== "") : items;
}

/**
 * A query parameter naming some of `known`, comma-separated (`?type=a,b`): empty items are skipped,
 * an unknown name is refused with the list of known ones.
 */
export function knownNameList<T extends string>(known: readonly T[], noun: string, maxLength: number) {
  return z
    .string()
    .max(maxLength)
    .transform((s, ctx) => {
      const names = commaList(s, { dropEmpty: true });
      const unknown = names.filter((t) => !(known as readonly string[]).includes(t));
      if (unknown.length > 0) {
        ctx.addIssue({ code: "custom", message: `unknown ${noun} ${unknown.join(", ")}; known: ${known.join(", ")}` });
        return z.NEVER;
      }
      return names as T[];
    });
}
