import { z } from "zod";
import { CreateSessionInput } from "../src/services/sessions/session-input.ts";
import { camel } from "../src/graphql/zod-shape.ts";

/**
 * The create's options as the dashboard's new-session form reads them
 * (src/dashboard/src/generated/session-options.json): each top-level option of CreateSessionInput
 * (the one declaration) with its GraphQL field name, its kind and its limits, from zod's own JSON
 * Schema. The form renders a control for each scalar option it has no hand-made control for, so a
 * new option shows up there with no dashboard edit.
 */

export interface SessionOptionEntry {
  /** As the server names it in problems (snake_case). */
  name: string;
  /** The GraphQL input field. */
  field: string;
  kind: "boolean" | "string" | "number" | "integer" | "enum" | "object" | "array";
  required: boolean;
  description?: string;
  values?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

type JsonSchema = { type?: string; enum?: unknown[]; description?: string; minimum?: number; maximum?: number; maxLength?: number };

export function sessionOptionList(): SessionOptionEntry[] {
  const json = z.toJSONSchema(CreateSessionInput, { io: "input", unrepresentable: "any" }) as { properties: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties).map(([name, p]) => {
    const kind = (p.enum ? "enum" : (p.type ?? "object")) as SessionOptionEntry["kind"];
    return {
      name,
      field: camel(name),
      kind,
      required: json.required?.includes(name) ?? false,
      ...(p.description ? { description: p.description } : {}),
      ...(p.enum ? { values: p.enum.map(String) } : {}),
      ...(p.minimum !== undefined ? { minimum: p.minimum } : {}),
      ...(p.maximum !== undefined ? { maximum: p.maximum } : {}),
      ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
    };
  });
}
