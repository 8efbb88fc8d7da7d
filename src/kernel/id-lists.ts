import type { z } from "zod";

/**
 * A list of ids names each thing once (issue 41): the same id twice is a mistake of the caller, not
 * something to guess about (load the extension twice? once?), and further down it would meet a
 * unique key and fail as a 500. Refused with a 400 naming the later position: use as
 * `z.array(Id).superRefine(distinctIds)`.
 */
export function distinctIds(ids: readonly string[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  ids.forEach((id, at) => {
    const first = seen.get(id);
    if (first === undefined) seen.set(id, at);
    else ctx.addIssue({ code: "custom", path: [at], message: `repeats the id at position ${first}: name each id once` });
  });
}
