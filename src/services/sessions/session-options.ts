import { z } from "zod";
import { CreateSessionInput } from "./session-input.ts";

/**
 * Where each declared create option is kept. The options below have a column of their own (or, for
 * `proxy` and `start_url`, are used once and never stored); every other top-level option of
 * CreateSessionInput is stored as given in the session's `options` column and returned on the session
 * under its own name. So a new option needs no column, no migration and no presenter: declared in
 * session-input.ts, it is stored and returned.
 */
export const dedicatedOptions = [
  "region",
  "profile_id",
  "save_profile_on_release",
  "live_view",
  "timeout_seconds",
  "idle_timeout_seconds",
  "proxy",
  "logs",
  "metadata",
  "browser",
  "extension_ids",
  "recording",
  "start_url",
] as const satisfies ReadonlyArray<keyof typeof CreateSessionInput.shape>;

type Dedicated = (typeof dedicatedOptions)[number];
type Shape = typeof CreateSessionInput.shape;
/** The options the `options` column holds, by name. */
export type StoredOptionShape = Omit<Shape, Dedicated>;

const dedicated: ReadonlySet<string> = new Set(dedicatedOptions);

/** The declared options kept in `options`, with their schemas (presenters derive their fields from it). */
export const storedOptionShape = Object.fromEntries(Object.entries(CreateSessionInput.shape).filter(([name]) => !dedicated.has(name))) as StoredOptionShape;

/** The stored options as the wire shape returns them: each as it was given, absent when it was not. */
export const StoredOptions = z.object(
  Object.fromEntries(Object.entries(storedOptionShape).map(([name, schema]) => [name, (schema as z.ZodType).optional()])) as {
    [K in keyof StoredOptionShape]: z.ZodOptional<StoredOptionShape[K]>;
  },
);
export type StoredOptions = z.output<typeof StoredOptions>;

/** What a create stores in the `options` column: its declared options without a column, as given. */
export function optionsColumn(input: CreateSessionInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input))
    if (!dedicated.has(name) && Object.hasOwn(storedOptionShape, name) && value !== undefined) out[name] = value;
  return out;
}

/** The `options` column read back: only options still declared (one removed since is no longer returned). */
export function storedOptions(column: unknown): StoredOptions {
  if (!column || typeof column !== "object" || Array.isArray(column)) return {} as StoredOptions;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(column as Record<string, unknown>))
    if (Object.hasOwn(storedOptionShape, name) && value !== undefined) out[name] = value;
  return out as StoredOptions;
}
