import { redactText, redactUrl } from "../../redaction.ts";

/**
 * How a session's log entries word what Chromium reports (capture.ts): console
 * arguments as text, an uncaught error, where it came from. Everything that can quote a URL goes
 * through the redaction rule (redaction.ts); texts are cut at MAX_TEXT_BYTES.
 */

/** The longest console text or stack an entry keeps (UTF-16 units, about bytes for most text). */
export const MAX_TEXT = 8 * 1024;
/** The longest URL an entry keeps. */
export const MAX_URL = 4 * 1024;

/** Chromium's Runtime.RemoteObject, the parts read here. */
export interface RemoteObject {
  type: string;
  subtype?: string;
  className?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  objectId?: string;
  preview?: { overflow?: boolean; properties?: Array<{ name: string; type: string; value?: string; subtype?: string }> };
}

export interface CallFrame {
  url: string;
  lineNumber: number;
  columnNumber: number;
  functionName?: string;
}

export function cut(text: string, max = MAX_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A URL as entries keep it: credentials in its query masked, a data: URL without its data, at most MAX_URL long. */
export function entryUrl(url: string | undefined): string | null {
  if (!url) return null;
  if (url.startsWith("data:")) {
    const comma = url.indexOf(",");
    return `${url.slice(0, Math.min(comma === -1 ? url.length : comma, 200))},…`;
  }
  return cut(redactUrl(url), MAX_URL);
}

function previewText(o: RemoteObject): string | undefined {
  const props = o.preview?.properties;
  if (!props) return undefined;
  const array = o.subtype === "array" || o.subtype === "typedarray";
  const items = props.map((p) => {
    const value = p.type === "string" ? JSON.stringify(p.value ?? "") : (p.value ?? p.type);
    return array ? value : `${p.name}: ${value}`;
  });
  if (o.preview?.overflow) items.push("…");
  return array ? `[${items.join(", ")}]` : `{${items.join(", ")}}`;
}

/** One console argument as the DevTools console would show it, roughly. */
export function remoteText(o: RemoteObject): string {
  if (o.unserializableValue !== undefined) return o.unserializableValue;
  switch (o.type) {
    case "string":
      return String(o.value ?? "");
    case "number":
    case "boolean":
    case "bigint":
      return String(o.value ?? o.description ?? "");
    case "undefined":
      return "undefined";
    case "symbol":
    case "function":
      return o.description ?? o.type;
    default:
      if (o.subtype === "null") return "null";
      if (o.subtype === "error" || o.subtype === "regexp" || o.subtype === "date") return o.description ?? o.className ?? "Object";
      return previewText(o) ?? o.description ?? o.className ?? "Object";
  }
}

/** console.log's arguments as one line: printf-style `%s %d %i %f %o %O %c` in a leading string, then the rest. */
export function consoleText(args: RemoteObject[]): string {
  const rest = [...args];
  let head = "";
  const first = rest[0];
  if (first?.type === "string" && typeof first.value === "string" && first.value.includes("%")) {
    rest.shift();
    head = first.value.replace(/%([sdifoOc%])/g, (all, spec: string) => {
      if (spec === "%") return "%";
      const arg = rest.shift();
      if (arg === undefined) return all;
      if (spec === "c") return "";
      if (spec === "d" || spec === "i") return arg.type === "number" ? String(Math.trunc(Number(arg.value))) : "NaN";
      if (spec === "f") return arg.type === "number" ? String(arg.value) : "NaN";
      return remoteText(arg);
    });
  }
  const parts = head ? [head, ...rest.map(remoteText)] : rest.map(remoteText);
  return cut(redactText(parts.join(" ")));
}

/** Where something came from: the frame's URL, 1-based line and column. */
export function sourceOf(frame: CallFrame | undefined): { source_url: string | null; line: number | null; column: number | null } {
  if (!frame) return { source_url: null, line: null, column: null };
  return { source_url: entryUrl(frame.url), line: frame.lineNumber + 1, column: frame.columnNumber + 1 };
}

/** Chromium's Runtime.ExceptionDetails, the parts read here. */
export interface ExceptionDetails {
  text: string;
  lineNumber: number;
  columnNumber: number;
  url?: string;
  stackTrace?: { callFrames: CallFrame[] };
  exception?: RemoteObject;
}

/** An uncaught error: its message (the first line), its stack, where it was thrown. */
export function pageError(d: ExceptionDetails): {
  message: string;
  stack: string | null;
  source_url: string | null;
  line: number | null;
  column: number | null;
} {
  const description = d.exception?.description ?? (d.exception ? remoteText(d.exception) : undefined);
  const message = description?.split("\n", 1)[0] ?? d.text;
  const frames = d.stackTrace?.callFrames ?? [];
  const stack =
    description && description.includes("\n")
      ? description
      : frames.length > 0
        ? [message, ...frames.map((f) => `    at ${f.functionName || "<anonymous>"} (${f.url}:${f.lineNumber + 1}:${f.columnNumber + 1})`)].join("\n")
        : null;
  const top = frames[0] ?? (d.url ? { url: d.url, lineNumber: d.lineNumber, columnNumber: d.columnNumber } : undefined);
  return { message: cut(redactText(message)), stack: stack === null ? null : cut(redactText(stack)), ...sourceOf(top) };
}
