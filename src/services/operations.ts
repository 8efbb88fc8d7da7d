/**
 * Every operation, by the name both transports share (REST operationId = GraphQL root field), with
 * the action its audit entries carry. One table, so REST and GraphQL can never audit differently.
 */
export const operations = {
  health: { action: "health.get" },
  apiKeys: { action: "api_key.list" },
  createApiKey: { action: "api_key.create" },
  revokeApiKey: { action: "api_key.revoke" },
  auditLog: { action: "audit.list" },
  createSession: { action: "session.create" },
  sessions: { action: "session.list" },
  session: { action: "session.get" },
  releaseSession: { action: "session.release" },
  forceStopSession: { action: "session.force_stop" },
  keepaliveSession: { action: "session.keepalive" },
  sessionEvents: { action: "session.events" },
  revokeLiveViews: { action: "session.live_view_revoke" },
} as const satisfies Record<string, { action: string }>;

export type OperationId = keyof typeof operations;

export function auditAction(operationId: string): string {
  const op = (operations as Record<string, { action: string }>)[operationId];
  if (!op) throw new Error(`operation ${operationId} has no entry in src/services/operations.ts`);
  return op.action;
}
