import declared from "../generated/session-options.json";

// The create's options this form has no hand-made control for, from the list `npm run generate`
// derives from the server's CreateSessionInput: each scalar one gets a generic control, so an option
// declared on the server shows up here with no dashboard edit.

export interface DeclaredOption {
  name: string;
  field: string;
  kind: string;
  required: boolean;
  description?: string;
  values?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

/** The options the dialog renders by hand (server names); objects and lists need a hand-made control anyway. */
const handMade = new Set([
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
]);
const scalar = new Set(["boolean", "string", "number", "integer", "enum"]);

export const declaredOptions: DeclaredOption[] = (declared as DeclaredOption[]).filter((o) => !handMade.has(o.name) && scalar.has(o.kind));

/** What each generic control holds: a checkbox's state, else the text typed (or the value chosen). */
export type DeclaredState = Record<string, string | boolean>;

/** `block_ads` → "Block ads". */
export const optionLabel = (name: string) => name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

/** The given options as GraphQL input fields (left out when empty or unchecked), and the form's own problems by server name. */
export function declaredInput(
  state: DeclaredState,
  options: readonly DeclaredOption[] = declaredOptions,
): { input: Record<string, unknown>; problems: Map<string, string> } {
  const input: Record<string, unknown> = {};
  const problems = new Map<string, string>();
  for (const o of options) {
    const v = state[o.name];
    if (v === undefined || v === "" || v === false) continue;
    if (o.kind === "boolean") input[o.field] = v === true;
    else if (o.kind === "number" || o.kind === "integer") {
      const n = Number(v);
      if (!Number.isFinite(n) || (o.kind === "integer" && !Number.isInteger(n)))
        problems.set(o.name, o.kind === "integer" ? "must be a whole number" : "must be a number");
      else input[o.field] = n;
    } else input[o.field] = String(v).trim();
  }
  return { input, problems };
}

export const isDeclaredField = (field: string) => declaredOptions.some((o) => o.name === field);
