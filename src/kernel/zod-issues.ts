import type { z } from "zod";
import type { FieldError } from "../errors.ts";

/**
 * zod's issues as the field errors of a problem document, worded for the person reading them: each
 * says the rule and, where there is a closed set, its values. zod's own defaults ("Invalid key in
 * record", "expected string, received undefined") say neither; a schema's own message is kept.
 * Every transport and service reports validation through here, so the words are the same everywhere.
 */
export function fieldErrorsOf(error: z.ZodError, prefix: readonly string[] = []): FieldError[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path.map(String)];
    return { field: path.join(".") || "input", message: messageOf(issue) };
  });
}

function messageOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      // The default says "Invalid input: expected string, received undefined"; a schema's own message stays.
      if (/received undefined$/.test(issue.message)) return `required: ${article(issue.expected)}`;
      if (issue.message.startsWith("Invalid input:")) return `must be ${article(issue.expected)}`;
      return issue.message;
    case "invalid_key": {
      const key = String(issue.path.at(-1) ?? "");
      const why = issue.issues.map((inner) => inner.message).join("; ");
      return `the key "${key}" is not allowed: ${why}`;
    }
    case "invalid_value":
      if (issue.message.startsWith("Invalid option") || issue.message.startsWith("Invalid input"))
        return issue.values.length === 1 ? `must be ${show(issue.values[0])}` : `must be one of: ${issue.values.map(show).join(", ")}`;
      return issue.message;
    case "too_big":
      if (issue.message.startsWith("Too big:")) return `must be at most ${bound(issue.maximum, issue.origin)}`;
      return issue.message;
    case "too_small":
      if (issue.message.startsWith("Too small:")) return `must be at least ${bound(issue.minimum, issue.origin)}`;
      return issue.message;
    case "unrecognized_keys":
      return `${issue.keys.length === 1 ? "this field is" : "these fields are"} not accepted here: ${issue.keys.join(", ")} (check the spelling)`;
    default:
      return issue.message;
  }
}

const article = (type: string) => (type === "int" ? "a whole number" : type === "array" || type === "object" ? `an ${type}` : `a ${type}`);

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function bound(limit: number | bigint, origin: string): string {
  if (origin === "string") return `${limit} characters`;
  if (origin === "array" || origin === "set") return `${limit} items`;
  return String(limit);
}
