// Every operation of the API, declared once: the id both transports share (REST operationId =
// GraphQL root field), the action its audit entries carry, the service's input schema where it has
// one, and the service function both transports call (src/kernel/operations.ts says why).
import { catalogue } from "../kernel/operations.ts";
import { createWorkspaceApiKey, listWorkspaceApiKeys, revokeWorkspaceApiKey, ApiKeyLabel } from "./api-keys/api-keys.ts";
import { AuditQuery } from "./audit/audit.ts";
import { createCredential, deleteCredential, getCredential, listCredentials, updateCredential } from "./credentials/credentials.ts";
import { fillCredential } from "./credentials/credential-fill.ts";
import { CreateCredentialInput, CredentialListQuery, FillCredentialInput, UpdateCredentialInput } from "./credentials/credential-input.ts";
import { auditLog } from "./audit/audit-log.ts";
import { getDownload, listDownloads } from "./downloads/downloads.ts";
import { getHealth } from "./health/health.ts";
import { createInvitation, listInvitations, revokeInvitation } from "./invitations/invitations.ts";
import { changeMemberRole, listMembers, removeMember } from "./members/members.ts";
import {
  CreateProfileInput,
  ProfileListQuery,
  SaveProfileInput,
  UpdateProfileInput,
  createProfile,
  deleteProfile,
  exportProfileStorageState,
  getProfile,
  listProfiles,
  saveProfile,
  updateProfile,
} from "./profiles/profiles.ts";
import { SAVE_PROFILE_ACTION } from "./profiles/profile-sessions.ts";
import { listSessionEvents, SessionEventQuery } from "./session-events/event-feed.ts";
import { listSessionLogs, SessionLogQuery } from "./session-logs/log-reads.ts";
import { deleteRecording, getRecording } from "./recordings/recordings.ts";
import { getSessionBundle } from "./session-exports/bundle.ts";
import { getSessionHar } from "./session-exports/session-har.ts";
import { createSessionOnce } from "./sessions/create-once.ts";
import { revokeLiveViews } from "./sessions/live-view.ts";
import { forceStopSession, getSession, keepaliveSession, listSessions, releaseSession } from "./sessions/sessions.ts";
import { CreateSessionInput, SessionListQuery } from "./sessions/session-input.ts";
import { followWorkspaceSessions } from "./sessions/workspace-sessions.ts";
import { deleteExtension, getExtension, listExtensions, uploadExtension } from "./extensions/extensions.ts";
import { listSessionFiles, uploadSessionFile } from "./session-files/session-files.ts";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from "./webhooks/webhook-endpoints.ts";
import { listWebhookDeliveries, retryWebhookDelivery, sendTestWebhook } from "./webhooks/webhook-deliveries.ts";
import { CreateWebhookInput, DeliveryListQuery, UpdateWebhookInput, WebhookListQuery } from "./webhooks/webhook-input.ts";
import { refreshSignIn, signOut } from "./sign-ins/refresh-families.ts";
import { exchangeSignIn, requestSignIn } from "./sign-ins/sign-in.ts";
import { getMe } from "./sign-ins/users.ts";
import { createWorkspaceAsAdmin, listMyWorkspaces } from "./workspaces/workspaces.ts";
import { claimWorkspace } from "./workspaces/workspace-claims.ts";
import { getWorkspaceSettings, updateWorkspaceSettings } from "./workspaces/workspace-settings.ts";
import { UpdateWorkspaceSettingsInput } from "./workspaces/workspace-settings-input.ts";
import { getNetworkPolicy, setNetworkPolicy } from "./network-policy/network-policy.ts";
import { NetworkPolicyInput } from "./network-policy/network-policy-input.ts";

export const operations = catalogue({
  health: { action: "health.get", run: getHealth },
  apiKeys: { action: "api_key.list", run: listWorkspaceApiKeys },
  createApiKey: { action: "api_key.create", input: ApiKeyLabel, run: createWorkspaceApiKey },
  revokeApiKey: { action: "api_key.revoke", run: revokeWorkspaceApiKey },
  auditLog: { action: "audit.list", input: AuditQuery, run: auditLog },
  requestSignIn: { action: "auth.sign_in_request", run: requestSignIn },
  exchangeSignIn: { action: "auth.sign_in", run: exchangeSignIn },
  refreshSignIn: { action: "auth.refresh", run: refreshSignIn },
  signOut: { action: "auth.sign_out", run: signOut },
  me: { action: "user.get", run: getMe },
  workspaces: { action: "workspace.list", run: listMyWorkspaces },
  createWorkspace: { action: "workspace.create", run: createWorkspaceAsAdmin },
  claimWorkspace: { action: "workspace.claim", run: claimWorkspace },
  workspaceSettings: { action: "workspace.get", run: getWorkspaceSettings },
  updateWorkspaceSettings: { action: "workspace.update", input: UpdateWorkspaceSettingsInput, run: updateWorkspaceSettings },
  networkPolicy: { action: "workspace.network_policy_read", run: getNetworkPolicy },
  setNetworkPolicy: { action: "workspace.network_policy_update", input: NetworkPolicyInput, run: setNetworkPolicy },
  members: { action: "member.list", run: listMembers },
  changeMemberRole: { action: "member.change_role", run: changeMemberRole },
  removeMember: { action: "member.remove", run: removeMember },
  invitations: { action: "invitation.list", run: listInvitations },
  createInvitation: { action: "invitation.create", run: createInvitation },
  revokeInvitation: { action: "invitation.revoke", run: revokeInvitation },
  createSession: { action: "session.create", input: CreateSessionInput, run: createSessionOnce },
  sessions: { action: "session.list", input: SessionListQuery, run: listSessions },
  session: { action: "session.get", run: getSession },
  releaseSession: { action: "session.release", run: releaseSession },
  forceStopSession: { action: "session.force_stop", run: forceStopSession },
  keepaliveSession: { action: "session.keepalive", run: keepaliveSession },
  sessionEvents: { action: "session.events", input: SessionEventQuery, run: listSessionEvents },
  sessionLogs: { action: "session.logs.read", input: SessionLogQuery, run: listSessionLogs },
  sessionRecording: { action: "session.recording.read", run: getRecording },
  deleteRecording: { action: "session.recording.delete", run: deleteRecording },
  sessionHar: { action: "session.har.read", run: getSessionHar },
  sessionBundle: { action: "session.bundle.read", run: getSessionBundle },
  workspaceSessions: { action: "session.watch", run: followWorkspaceSessions },
  revokeLiveViews: { action: "session.live_view_revoke", run: revokeLiveViews },
  sessionDownloads: { action: "session.downloads", run: listDownloads },
  sessionDownload: { action: "session.download", run: getDownload },
  uploadSessionFile: { action: "session.file_upload", run: uploadSessionFile },
  sessionFiles: { action: "session.files", run: listSessionFiles },
  uploadExtension: { action: "extension.upload", run: uploadExtension },
  extensions: { action: "extension.list", run: listExtensions },
  extension: { action: "extension.read", run: getExtension },
  deleteExtension: { action: "extension.delete", run: deleteExtension },
  createWebhook: { action: "webhook.create", input: CreateWebhookInput, run: createWebhook },
  webhooks: { action: "webhook.list", input: WebhookListQuery, run: listWebhooks },
  webhook: { action: "webhook.read", run: getWebhook },
  updateWebhook: { action: "webhook.update", input: UpdateWebhookInput, run: updateWebhook },
  deleteWebhook: { action: "webhook.delete", run: deleteWebhook },
  rotateWebhookSecret: { action: "webhook.rotate_secret", run: rotateWebhookSecret },
  testWebhook: { action: "webhook.test", run: sendTestWebhook },
  webhookDeliveries: { action: "webhook.deliveries", input: DeliveryListQuery, run: listWebhookDeliveries },
  retryWebhookDelivery: { action: "webhook.delivery_retry", run: retryWebhookDelivery },
  createProfile: { action: "profile.create", input: CreateProfileInput, run: createProfile },
  profiles: { action: "profile.list", input: ProfileListQuery, run: listProfiles },
  profile: { action: "profile.get", run: getProfile },
  saveProfile: { action: SAVE_PROFILE_ACTION, input: SaveProfileInput, run: saveProfile },
  updateProfile: { action: "profile.update", input: UpdateProfileInput, run: updateProfile },
  deleteProfile: { action: "profile.delete", run: deleteProfile },
  profileStorageState: { action: "profile.export", run: exportProfileStorageState },
  createCredential: { action: "credential.create", input: CreateCredentialInput, run: createCredential },
  credentials: { action: "credential.list", input: CredentialListQuery, run: listCredentials },
  credential: { action: "credential.get", run: getCredential },
  updateCredential: { action: "credential.update", input: UpdateCredentialInput, run: updateCredential },
  deleteCredential: { action: "credential.delete", run: deleteCredential },
  fillCredential: { action: "credential.fill", input: FillCredentialInput, run: fillCredential },
});

export type OperationId = keyof typeof operations;
