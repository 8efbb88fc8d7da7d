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
  requestSignIn: { action: "auth.sign_in_request" },
  exchangeSignIn: { action: "auth.sign_in" },
  refreshSession: { action: "auth.refresh" },
  signOut: { action: "auth.sign_out" },
  me: { action: "user.get" },
  workspaces: { action: "workspace.list" },
  createWorkspace: { action: "workspace.create" },
  members: { action: "member.list" },
  changeMemberRole: { action: "member.change_role" },
  removeMember: { action: "member.remove" },
  invitations: { action: "invitation.list" },
  createInvitation: { action: "invitation.create" },
  revokeInvitation: { action: "invitation.revoke" },
  createSession: { action: "session.create" },
  sessions: { action: "session.list" },
  session: { action: "session.get" },
  releaseSession: { action: "session.release" },
  forceStopSession: { action: "session.force_stop" },
  keepaliveSession: { action: "session.keepalive" },
  sessionEvents: { action: "session.events" },
  workspaceSessions: { action: "session.watch" },
  revokeLiveViews: { action: "session.live_view_revoke" },
  sessionDownloads: { action: "session.downloads" },
  sessionDownload: { action: "session.download" },
  createProfile: { action: "profile.create" },
  profiles: { action: "profile.list" },
  profile: { action: "profile.get" },
  saveProfile: { action: "profile.save" },
  updateProfile: { action: "profile.update" },
  deleteProfile: { action: "profile.delete" },
  profileStorageState: { action: "profile.export" },
} as const satisfies Record<string, { action: string }>;

export type OperationId = keyof typeof operations;

export function auditAction(operationId: string): string {
  const op = (operations as Record<string, { action: string }>)[operationId];
  if (!op) throw new Error(`operation ${operationId} has no entry in src/kernel/operations.ts`);
  return op.action;
}
