import { type SessionEventType } from "@gql/graphql.ts";

export interface TimelineEvent {
  id: string;
  type: SessionEventType;
  createdAt: string;
  data: string;
}

export const finalTypes = new Set<SessionEventType>(["SESSION_RELEASED", "SESSION_TIMED_OUT", "SESSION_FAILED"]);

export function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
