import { storedOptionShape, storedOptions } from "../../services/sessions/session-options.ts";
import type { SessionView } from "../../services/sessions/session-view.ts";
import { builder } from "../builder.ts";
import { zodOutputFields } from "../zod-output.ts";

/**
 * The Session type's fields for the declared create options stored in its `options` column
 * (services/sessions/session-options.ts): derived, so an option declared there is presented here
 * with no edit. Nested types are named `SessionOption<Field>`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the Session type's field builder.
export const storedOptionFields = (t: any) =>
  zodOutputFields(builder, t, storedOptionShape as never, (v: SessionView) => storedOptions(v.session.options) as Record<string, unknown>, "SessionOption");
