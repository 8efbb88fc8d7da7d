// The log as a person at a terminal reads it: one line per entry, local time, level, message and the
// few fields that matter; the same entries stay JSON (for collectors) when stdout is not a terminal,
// or when VESSEL_LOG_FORMAT=json. pino-pretty formats (decision 0312); this file only picks.
import { prettyFactory } from "pino-pretty";

export type LogFormat = "auto" | "json" | "pretty";

/** `auto`: pretty on a terminal, JSON otherwise (a pipe, a file, a container's log collector). */
export function resolvedLogFormat(format: LogFormat, isTty: boolean = process.stdout.isTTY === true): "json" | "pretty" {
  if (format === "auto") return isTty ? "pretty" : "json";
  return format;
}

/** Fields every entry carries that a person at the console does not need (they stay in JSON). */
const hidden = ["pid", "hostname", "requestId", "clientRequestId", "component", "nodeId"];

type Entry = Record<string, unknown> & { msg?: string };

/**
 * The entry as shown: a request line reads `GET /v1/sessions → 201 (12 ms)`; the component an entry
 * comes from (browsers, relay, …) leads its message.
 */
export function forPeople(entry: Entry): Entry {
  const shown: Entry = { ...entry };
  if (entry.msg === "request" && typeof entry.method === "string") {
    shown.msg = `${entry.method} ${String(entry.url)} → ${String(entry.status)} (${String(entry.ms)} ms)`;
    delete shown.method;
    delete shown.url;
    delete shown.status;
    delete shown.ms;
  }
  if (typeof entry.component === "string") shown.msg = `[${entry.component}] ${shown.msg ?? ""}`;
  for (const key of hidden) delete shown[key];
  return shown;
}

/** A destination for pino that writes each entry as one human line to `out`. */
export function prettyDestination(out: { write(text: string): unknown } = process.stdout, colorize = process.stdout.isTTY === true) {
  const pretty = prettyFactory({ colorize, translateTime: "SYS:HH:MM:ss", singleLine: true, ignore: "pid,hostname" });
  return {
    write(line: string) {
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        out.write(line);
        return;
      }
      out.write(pretty(forPeople(entry)));
    },
  };
}
