import { z } from "zod";
import type { AuditEntry } from "../../generated/prisma/client.ts";

/** An audit entry on the wire. */
export const AuditEntryDto = z
  .object({
    id: z.string(),
    key_prefix: z.string().nullable().describe("`vs_<id>` of the API key that made the call; null for dashboard users."),
    actor_user_id: z.string().nullable().describe("The dashboard user who made the call; null for API keys."),
    action: z.string().describe("For example `session.create`."),
    target: z.string().nullable().describe("Identifier of the resource acted on; for `auth.refused.summary`, how many refused calls the entry stands for."),
    http_status: z.number().int().describe("The status the call answered with; denied calls are recorded too."),
    request_id: z.string().nullable().describe("The request's id, as in the server log, its `X-Request-Id` answer header and problem documents."),
    client_request_id: z
      .string()
      .nullable()
      .describe("The `X-Request-Id` the client sent, if it was 1–128 letters, digits or `._:+/=-`; only for correlation, never the request's id."),
    ip: z.string().nullable().describe("The caller's address."),
    created_at: z.string().describe("ISO 8601."),
  })
  .meta({ id: "AuditEntry" });

export type AuditEntryDto = z.infer<typeof AuditEntryDto>;

/** The wire form of an entry: column by column, so a column added later stays out until chosen. */
export function auditDto(e: AuditEntry): AuditEntryDto {
  return {
    id: e.id,
    key_prefix: e.keyPrefix,
    actor_user_id: e.actorUserId,
    action: e.action,
    target: e.target,
    http_status: e.httpStatus,
    request_id: e.requestId,
    client_request_id: e.clientRequestId,
    ip: e.ip,
    created_at: e.createdAt.toISOString(),
  };
}
