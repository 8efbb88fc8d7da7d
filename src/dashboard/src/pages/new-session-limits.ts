// The new-session dialog's own fields the form checks before any round trip: time limits in the
// minutes it shows (the server counts seconds; its "<=1800" must never reach a person), and the start
// URL. Problems are keyed by the server's field names, so both kinds are shown the same way, once.

/**
 * The most any session may ask (session-input.ts: a day). The deployment's own limit
 * (VESSEL_MAX_SESSION_SECONDS, 30 minutes unless set) or the workspace's is checked by the server,
 * whose message the form shows in minutes next to the field.
 */
export const MAX_SESSION_MINUTES = 24 * 60;

export interface LimitsState {
  minutes: string;
  idleMinutes: string;
  startUrl: string;
}

export interface LimitsInput {
  timeoutSeconds: number | null;
  idleTimeoutSeconds: number | null;
  startUrl: string | null;
}

/** Whole minutes from 1 to the cap, as seconds; empty: the server's default. */
function minutes(text: string, field: string, problems: Map<string, string>): number | null {
  const t = text.trim();
  if (!t) return null;
  const n = Number(t);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SESSION_MINUTES) {
    problems.set(field, `Enter whole minutes from 1 to ${MAX_SESSION_MINUTES}.`);
    return null;
  }
  return n * 60;
}

/** An http(s) address; `example.com/path` is taken as https://example.com/path. */
export function startUrlOf(text: string): string | null | "bad" {
  const t = text.trim();
  if (!t) return null;
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(t) ? t : `https://${t}`;
  try {
    const u = new URL(candidate);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname || candidate.length > 2000) return "bad";
    return u.href;
  } catch {
    return "bad";
  }
}

export function limitsInput(s: LimitsState): { input: LimitsInput; problems: Map<string, string> } {
  const problems = new Map<string, string>();
  const timeoutSeconds = minutes(s.minutes, "timeout_seconds", problems);
  const idleTimeoutSeconds = minutes(s.idleMinutes, "idle_timeout_seconds", problems);
  const url = startUrlOf(s.startUrl);
  if (url === "bad") problems.set("start_url", "Enter an http(s) address, like https://example.com/.");
  return { input: { timeoutSeconds, idleTimeoutSeconds, startUrl: url === "bad" ? null : url }, problems };
}
