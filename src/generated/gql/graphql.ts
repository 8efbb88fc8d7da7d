/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type BrowserPoolState =
  | 'READY'
  | 'UNAVAILABLE';

/** Browser settings for this session: they hold in every tab, frame and worker it opens, whichever CDP client connects. */
export type BrowserSettingsInput = {
  /** What navigator.geolocation reports (the permission is granted). */
  geolocation?: GeolocationInput | null | undefined;
  /** navigator.language(s), Accept-Language and Intl's default locale. */
  locale?: string | null | undefined;
  /** Intl's time zone and every Date. */
  timezone?: string | null | undefined;
  /** navigator.userAgent and the User-Agent header (at most 512 characters). */
  userAgent?: string | null | undefined;
  /** The size of every tab (innerWidth × innerHeight), 200–3840 each. */
  viewport?: BrowserViewportInput | null | undefined;
};

/** The size of every tab (innerWidth × innerHeight), 200–3840 each. */
export type BrowserViewportInput = {
  /** Device pixels per CSS pixel (default 1). */
  deviceScaleFactor?: number | null | undefined;
  height: number;
  /** Emulate a phone: mobile viewport rules and touch. */
  mobile?: boolean | null | undefined;
  width: number;
};

export type CookieSameSite =
  | 'Lax'
  | 'None'
  | 'Strict';

export type CreateCredentialInput = {
  name: string;
  origins: Array<string>;
  /** Write-only. */
  password: string;
  /** Base32 (RFC 6238). Write-only. */
  totpSecret?: string | null | undefined;
  /** Write-only. */
  username: string;
};

export type CreateSessionInput = {
  /** Browser settings for this session: they hold in every tab, frame and worker it opens, whichever CDP client connects. */
  browser?: BrowserSettingsInput | null | undefined;
  /** Extensions of this workspace (POST /v1/extensions) to load into this session only; needs full Chromium (else 422 extensions-unsupported). Each id once. */
  extensionIds?: Array<string> | null | undefined;
  /** Release the session after this long without a CDP client (default 300; at most the session limit). */
  idleTimeoutSeconds?: number | null | undefined;
  liveView?: LiveViewInput | null | undefined;
  /**
   * Shown to the person in the live view.
   * @deprecated Use `liveView.instructions`.
   */
  liveViewInstructions?: string | null | undefined;
  /**
   * Let the viewer use mouse and keyboard.
   * @deprecated Use `liveView.interactive`.
   */
  liveViewInteractive?: boolean | null | undefined;
  /** Capture the session's console messages, page errors, navigations, network requests and CDP methods (GET …/logs). Default: the deployment's `VESSEL_LOGS` (on). */
  logs?: boolean | null | undefined;
  /** Your own labels: at most 16 keys ([a-z0-9_.-]{1,64}) to strings of at most 512 characters. */
  metadata?: Array<MetadataEntryInput> | null | undefined;
  /** This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`. */
  networkPolicy?: CreateSessionNetworkPolicyInput | null | undefined;
  /** Within its workspace, a queued session with a higher priority (−10…10, default 0) starts first; then the oldest. */
  priority?: number | null | undefined;
  /** Start from a saved profile of this workspace. */
  profileId?: string | null | undefined;
  /** An upstream proxy for this session's traffic. */
  proxy?: ProxyInput | null | undefined;
  /**
   * Never returned, logged or stored.
   * @deprecated Use `proxy.password`.
   */
  proxyPassword?: string | null | undefined;
  /**
   * Your HTTP proxy (`http://host:port`): the session's traffic leaves through it, after the egress policy has judged each destination.
   * @deprecated Use `proxy.server`.
   */
  proxyServer?: string | null | undefined;
  /** @deprecated Use `proxy.username`. */
  proxyUsername?: string | null | undefined;
  /** With no free browser (or the workspace at its session cap), wait in the admission queue up to this long (at most 3600): the answer is then 202 QUEUED with `queue_position`. 0 (the default): refused at once (503/429). */
  queueTimeoutSeconds?: number | null | undefined;
  /** Record the session's screen into a video (GET …/recording once it ends). Default: the deployment's `VESSEL_RECORDING` (off). */
  recording?: boolean | null | undefined;
  /** A region this deployment serves (GET /v1/health lists them). */
  region: string;
  /** When the session is released (PATCH REQUEST_RELEASE), save its state back into `profile_id` (required with it). */
  saveProfileOnRelease?: boolean | null | undefined;
  /** Open this address in the session's first tab as it starts (not waited for; the egress policy judges it like any navigation). */
  startUrl?: string | null | undefined;
  /** Hard end, in seconds. At most the session limit (VESSEL_MAX_SESSION_SECONDS, 1800 unless the deployment or the workspace sets another, never above 86400), which is also the default. */
  timeoutSeconds?: number | null | undefined;
};

/** This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`. */
export type CreateSessionNetworkPolicyInput = {
  /** Destinations allowed, of those the node allows: host names (`example.com`), their subdomains (`*.example.com`), IP addresses or CIDRs (`10.1.0.0/16`), each with an optional `:port` (`[2001:db8::1]:443` for IPv6). Empty: whatever the node allows. */
  allow?: Array<string> | null | undefined;
  /** Destinations refused, in the same forms; deny beats allow. A CIDR is checked against the addresses a name resolves to. */
  deny?: Array<string> | null | undefined;
};

export type DatabaseKind =
  | 'PGLITE'
  | 'POSTGRES';

export type DependencyStatus =
  | 'OK'
  | 'UNAVAILABLE';

export type EndReason =
  | 'API_KEY_REVOKED'
  | 'BROWSER_CRASH'
  | 'CLIENT_RELEASE'
  | 'FORCE_STOP'
  | 'IDLE_TIMEOUT'
  | 'LAUNCH_FAILED'
  | 'NODE_SHUTDOWN'
  | 'QUEUE_TIMEOUT'
  | 'TIMEOUT';

/** What navigator.geolocation reports (the permission is granted). */
export type GeolocationInput = {
  /** Metres (default 10). */
  accuracy?: number | null | undefined;
  latitude: number;
  longitude: number;
};

export type HealthStatus =
  | 'DEGRADED'
  | 'OK';

export type InvitationStatus =
  | 'ACCEPTED'
  | 'EXPIRED'
  | 'PENDING'
  | 'REVOKED';

export type LiveViewInput = {
  /** Shown to the person in the live view. */
  instructions?: string | null | undefined;
  /** Let the viewer use mouse and keyboard. */
  interactive?: boolean | null | undefined;
};

export type MetadataEntryInput = {
  key: string;
  value: string;
};

/** An upstream proxy for this session's traffic. */
export type ProxyInput = {
  /** Never returned, logged or stored. */
  password?: string | null | undefined;
  /** Your HTTP proxy (`http://host:port`): the session's traffic leaves through it, after the egress policy has judged each destination. */
  server: string;
  username?: string | null | undefined;
};

/** RECORDING while the session runs, PROCESSING while the video is encoded and stored after its end, then READY or FAILED. */
export type RecordingStatus =
  | 'FAILED'
  | 'PROCESSING'
  | 'READY'
  | 'RECORDING';

/** OWNER: everything, owners included. ADMIN: API keys, invitations, members below owner, audit log. MEMBER: reads. */
export type Role =
  | 'ADMIN'
  | 'MEMBER'
  | 'OWNER';

/** What happened: `session.running` is SESSION_RUNNING, `live_view.done` is LIVE_VIEW_DONE, and so on. */
export type SessionEventType =
  | 'CDP_CONNECTED'
  | 'CDP_DISCONNECTED'
  | 'CDP_REFUSED'
  | 'DOWNLOAD_CANCELED'
  | 'DOWNLOAD_COMPLETED'
  | 'DOWNLOAD_REFUSED'
  | 'DOWNLOAD_STARTED'
  | 'EGRESS_REFUSED'
  | 'FILE_UPLOADED'
  | 'LIVE_VIEW_CLOSED'
  | 'LIVE_VIEW_DONE'
  | 'LIVE_VIEW_OPENED'
  | 'RECORDING_FAILED'
  | 'RECORDING_READY'
  | 'SESSION_FAILED'
  | 'SESSION_QUEUED'
  | 'SESSION_RELEASED'
  | 'SESSION_RUNNING'
  | 'SESSION_STARTED'
  | 'SESSION_TIMED_OUT';

export type SessionStatus =
  | 'FAILED'
  | 'PENDING'
  | 'QUEUED'
  | 'RELEASED'
  | 'REQUEST_RELEASE'
  | 'RUNNING'
  | 'TIMED_OUT';

export type UpdateCredentialInput = {
  name?: string | null | undefined;
  origins?: Array<string> | null | undefined;
  /** Write-only. */
  password?: string | null | undefined;
  /** Base32 (RFC 6238); null removes it. Write-only. */
  totpSecret?: string | null | undefined;
  /** Write-only. */
  username?: string | null | undefined;
};

export type CredentialFieldsFragment = { id: string, name: string, origins: Array<string>, usernameHint: string, hasTotp: boolean, createdAt: string, updatedAt: string, lastUsedAt: string | null };

export type CredentialsQueryVariables = Exact<{
  workspace: string;
}>;


export type CredentialsQuery = { credentials: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, name: string, origins: Array<string>, usernameHint: string, hasTotp: boolean, createdAt: string, updatedAt: string, lastUsedAt: string | null }> } };

export type CreateCredentialMutationVariables = Exact<{
  workspace: string;
  input: CreateCredentialInput;
}>;


export type CreateCredentialMutation = { createCredential: { id: string, name: string, origins: Array<string>, usernameHint: string, hasTotp: boolean, createdAt: string, updatedAt: string, lastUsedAt: string | null } };

export type UpdateCredentialMutationVariables = Exact<{
  workspace: string;
  id: string;
  input: UpdateCredentialInput;
}>;


export type UpdateCredentialMutation = { updateCredential: { id: string, name: string, origins: Array<string>, usernameHint: string, hasTotp: boolean, createdAt: string, updatedAt: string, lastUsedAt: string | null } };

export type DeleteCredentialMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type DeleteCredentialMutation = { deleteCredential: boolean };

export type RequestSignInMutationVariables = Exact<{
  email: string;
  codeChallenge: string;
  redirectTo?: string | null | undefined;
}>;


export type RequestSignInMutation = { requestSignIn: { linkLifetimeSeconds: number, mailConfigured: boolean } };

export type ExchangeSignInMutationVariables = Exact<{
  token: string;
  codeVerifier: string;
}>;


export type ExchangeSignInMutation = { exchangeSignIn: { accessTokenExpiresAt: string, refreshTokenExpiresAt: string, redirectTo: string | null, me: { id: string, email: string, organizationAdmin: boolean } } };

export type RefreshSignInMutationVariables = Exact<{ [key: string]: never; }>;


export type RefreshSignInMutation = { refreshSignIn: { accessTokenExpiresAt: string, refreshTokenExpiresAt: string } };

export type SignOutMutationVariables = Exact<{ [key: string]: never; }>;


export type SignOutMutation = { signOut: boolean };

export type MeQueryVariables = Exact<{ [key: string]: never; }>;


export type MeQuery = { me: { id: string, email: string, name: string | null, organizationAdmin: boolean, lastSignInAt: string | null, workspaces: Array<{ id: string, slug: string, name: string, role: Role }>, claimableWorkspaces: Array<{ slug: string, name: string }> } };

export type ClaimWorkspaceMutationVariables = Exact<{
  slug: string;
}>;


export type ClaimWorkspaceMutation = { claimWorkspace: { id: string, slug: string, name: string, role: Role } };

export type WorkspacesQueryVariables = Exact<{ [key: string]: never; }>;


export type WorkspacesQuery = { workspaces: Array<{ id: string, slug: string, name: string, role: Role, createdAt: string }> };

export type CreateWorkspaceMutationVariables = Exact<{
  slug: string;
  name: string;
}>;


export type CreateWorkspaceMutation = { createWorkspace: { id: string, slug: string, name: string, role: Role } };

export type MembersQueryVariables = Exact<{
  workspace: string;
}>;


export type MembersQuery = { members: Array<{ userId: string, email: string, name: string | null, role: Role, joinedAt: string }> };

export type ChangeMemberRoleMutationVariables = Exact<{
  workspace: string;
  userId: string;
  role: Role;
}>;


export type ChangeMemberRoleMutation = { changeMemberRole: { userId: string, role: Role } };

export type RemoveMemberMutationVariables = Exact<{
  workspace: string;
  userId: string;
}>;


export type RemoveMemberMutation = { removeMember: { userId: string } };

export type InvitationsQueryVariables = Exact<{
  workspace: string;
}>;


export type InvitationsQuery = { invitations: Array<{ id: string, email: string, role: Role, status: InvitationStatus, createdAt: string, expiresAt: string, acceptedAt: string | null, revokedAt: string | null }> };

export type CreateInvitationMutationVariables = Exact<{
  workspace: string;
  email: string;
  role: Role;
}>;


export type CreateInvitationMutation = { createInvitation: { id: string, email: string, role: Role, status: InvitationStatus, expiresAt: string, signInLink: string | null } };

export type RevokeInvitationMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type RevokeInvitationMutation = { revokeInvitation: { id: string, status: InvitationStatus } };

export type ApiKeysQueryVariables = Exact<{
  workspace: string;
}>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, label: string, prefix: string, createdAt: string, createdByUserId: string | null, lastUsedAt: string | null, revokedAt: string | null }> };

export type CreateApiKeyMutationVariables = Exact<{
  workspace: string;
  label: string;
  scopes?: Array<string> | string | null | undefined;
}>;


export type CreateApiKeyMutation = { createApiKey: { secret: string, apiKey: { id: string, label: string, prefix: string, createdAt: string, scopes: Array<string> } } };

export type RevokeApiKeyMutationVariables = Exact<{
  workspace: string;
  id: string;
  endSessions?: boolean | null | undefined;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string, revokedAt: string | null } };

export type AuditLogQueryVariables = Exact<{
  workspace: string;
  keyPrefix?: string | null | undefined;
  action?: string | null | undefined;
  actorUserId?: string | null | undefined;
  target?: string | null | undefined;
  since?: string | null | undefined;
  until?: string | null | undefined;
  changesOnly?: boolean | null | undefined;
  limit?: number | null | undefined;
  cursor?: string | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, keyPrefix: string | null, actorUserId: string | null, action: string, target: string | null, httpStatus: number, ip: string | null, requestId: string | null, clientRequestId: string | null, createdAt: string }> } };

export type SessionFieldsFragment = { id: string, status: SessionStatus, endReason: EndReason | null, region: string, createdAt: string, startedAt: string | null, expiresAt: string, endedAt: string | null, timeoutSeconds: number, idleTimeoutSeconds: number | null, profileId: string | null, liveViewInteractive: boolean, liveViewInstructions: string | null, liveViewViewers: number, queuePosition: number | null, logs: boolean, recording: boolean, profileLabel: string | null, metadata: Array<{ key: string, value: string }>, createdBy: { kind: string, keyPrefix: string | null, keyLabel: string | null, email: string | null } | null };

export type RegionsQueryVariables = Exact<{ [key: string]: never; }>;


export type RegionsQuery = { health: { regions: Array<string> } };

export type SessionsQueryVariables = Exact<{
  workspace: string;
  status?: SessionStatus | null | undefined;
  metadata?: Array<MetadataEntryInput> | MetadataEntryInput | null | undefined;
  limit?: number | null | undefined;
  cursor?: string | null | undefined;
}>;


export type SessionsQuery = { sessions: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, status: SessionStatus, endReason: EndReason | null, region: string, createdAt: string, startedAt: string | null, expiresAt: string, endedAt: string | null, timeoutSeconds: number, idleTimeoutSeconds: number | null, profileId: string | null, liveViewInteractive: boolean, liveViewInstructions: string | null, liveViewViewers: number, queuePosition: number | null, logs: boolean, recording: boolean, profileLabel: string | null, currentPage: { title: string, url: string } | null, metadata: Array<{ key: string, value: string }>, createdBy: { kind: string, keyPrefix: string | null, keyLabel: string | null, email: string | null } | null }> } };

export type SessionQueryVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type SessionQuery = { session: { connectUrl: string | null, liveViewUrl: string | null, id: string, status: SessionStatus, endReason: EndReason | null, region: string, createdAt: string, startedAt: string | null, expiresAt: string, endedAt: string | null, timeoutSeconds: number, idleTimeoutSeconds: number | null, profileId: string | null, liveViewInteractive: boolean, liveViewInstructions: string | null, liveViewViewers: number, queuePosition: number | null, logs: boolean, recording: boolean, profileLabel: string | null, extensionIds: Array<string>, metadata: Array<{ key: string, value: string }>, createdBy: { kind: string, keyPrefix: string | null, keyLabel: string | null, email: string | null } | null, browser: { userAgent: string | null, locale: string | null, timezone: string | null, viewport: { width: number, height: number, deviceScaleFactor: number | null, mobile: boolean | null } | null, geolocation: { latitude: number, longitude: number, accuracy: number | null } | null } | null } };

export type WorkspaceSessionsSubscriptionVariables = Exact<{
  workspace: string;
}>;


export type WorkspaceSessionsSubscription = { workspaceSessions: { id: string, status: SessionStatus, endReason: EndReason | null, region: string, createdAt: string, startedAt: string | null, expiresAt: string, endedAt: string | null, timeoutSeconds: number, idleTimeoutSeconds: number | null, profileId: string | null, liveViewInteractive: boolean, liveViewInstructions: string | null, liveViewViewers: number, queuePosition: number | null, logs: boolean, recording: boolean, profileLabel: string | null, metadata: Array<{ key: string, value: string }>, createdBy: { kind: string, keyPrefix: string | null, keyLabel: string | null, email: string | null } | null } };

export type CreateSessionMutationVariables = Exact<{
  workspace: string;
  idempotencyKey: string;
  input: CreateSessionInput;
}>;


export type CreateSessionMutation = { createSession: { connectUrl: string | null, liveViewUrl: string | null, id: string, status: SessionStatus, endReason: EndReason | null, region: string, createdAt: string, startedAt: string | null, expiresAt: string, endedAt: string | null, timeoutSeconds: number, idleTimeoutSeconds: number | null, profileId: string | null, liveViewInteractive: boolean, liveViewInstructions: string | null, liveViewViewers: number, queuePosition: number | null, logs: boolean, recording: boolean, profileLabel: string | null, metadata: Array<{ key: string, value: string }>, createdBy: { kind: string, keyPrefix: string | null, keyLabel: string | null, email: string | null } | null } };

export type ReleaseSessionMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type ReleaseSessionMutation = { releaseSession: boolean };

export type ForceStopSessionMutationVariables = Exact<{
  id: string;
}>;


export type ForceStopSessionMutation = { forceStopSession: boolean };

export type RevokeLiveViewsMutationVariables = Exact<{
  id: string;
}>;


export type RevokeLiveViewsMutation = { revokeLiveViews: boolean };

export type SessionEventsQueryVariables = Exact<{
  sessionId: string;
  after?: string | null | undefined;
}>;


export type SessionEventsQuery = { sessionEvents: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, type: SessionEventType, createdAt: string, data: string }> } };

export type SessionEventsFeedSubscriptionVariables = Exact<{
  sessionId: string;
  after?: string | null | undefined;
}>;


export type SessionEventsFeedSubscription = { sessionEvents: { id: string, type: SessionEventType, createdAt: string, data: string } };

export type ProfileFieldsFragment = { profileId: string, label: string, sizeBytes: number, cookieCount: number, originCount: number, keyCount: number, sourceSessionId: string | null, createdAt: string, updatedAt: string };

export type ProfilesQueryVariables = Exact<{
  workspace: string;
  limit?: number | null | undefined;
  cursor?: string | null | undefined;
}>;


export type ProfilesQuery = { profiles: { nextCursor: string | null, hasMore: boolean, items: Array<{ profileId: string, label: string, sizeBytes: number, cookieCount: number, originCount: number, keyCount: number, sourceSessionId: string | null, createdAt: string, updatedAt: string }> } };

export type SaveSessionAsProfileMutationVariables = Exact<{
  workspace: string;
  sessionId: string;
  label: string;
}>;


export type SaveSessionAsProfileMutation = { createProfile: { profileId: string, label: string, sizeBytes: number, cookieCount: number, originCount: number, keyCount: number, sourceSessionId: string | null, createdAt: string, updatedAt: string } };

export type UpdateProfileMutationVariables = Exact<{
  workspace: string;
  id: string;
  label: string;
}>;


export type UpdateProfileMutation = { updateProfile: { profileId: string, label: string, sizeBytes: number, cookieCount: number, originCount: number, keyCount: number, sourceSessionId: string | null, createdAt: string, updatedAt: string } };

export type DeleteProfileMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type DeleteProfileMutation = { deleteProfile: boolean };

export type ProfileStorageStateQueryVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type ProfileStorageStateQuery = { profileStorageState: { cookies: Array<{ name: string, value: string, domain: string, path: string, expires: number, httpOnly: boolean, secure: boolean, sameSite: CookieSameSite, partitionKey: string | null }>, origins: Array<{ origin: string, localStorage: Array<{ name: string, value: string }>, sessionStorage: Array<{ name: string, value: string }> }> } };

export type HealthQueryVariables = Exact<{ [key: string]: never; }>;


export type HealthQuery = { health: { status: HealthStatus, version: string, regions: Array<string>, database: { status: DependencyStatus, kind: DatabaseKind, latencyMs: number | null }, browserPool: { state: BrowserPoolState, capacity: number, inUse: number, warm: number } } };

export type NetworkPolicyQueryVariables = Exact<{
  workspace: string;
}>;


export type NetworkPolicyQuery = { networkPolicy: { allow: Array<string>, deny: Array<string>, updatedAt: string | null } };

export type SetNetworkPolicyMutationVariables = Exact<{
  workspace: string;
  allow: Array<string> | string;
  deny: Array<string> | string;
}>;


export type SetNetworkPolicyMutation = { setNetworkPolicy: { allow: Array<string>, deny: Array<string>, updatedAt: string | null } };

export type SessionLogsQueryVariables = Exact<{
  workspace: string;
  id: string;
  after?: number | null | undefined;
  cursor?: string | null | undefined;
}>;


export type SessionLogsQuery = { sessionLogs: { nextCursor: string | null, hasMore: boolean, items: Array<{ seq: number, type: string, at: string, data: string }> } };

export type SessionLogsFeedSubscriptionVariables = Exact<{
  workspace: string;
  id: string;
  after?: number | null | undefined;
}>;


export type SessionLogsFeedSubscription = { sessionLogs: { seq: number, type: string, at: string, data: string } };

export type SessionOptionsFragment = { extensionIds: Array<string>, browser: { userAgent: string | null, locale: string | null, timezone: string | null, viewport: { width: number, height: number, deviceScaleFactor: number | null, mobile: boolean | null } | null, geolocation: { latitude: number, longitude: number, accuracy: number | null } | null } | null };

export type SessionFileFieldsFragment = { id: string, name: string, size: number, sha256: string, path: string, uploadedAt: string, available: boolean };

export type SessionFilesQueryVariables = Exact<{
  sessionId: string;
}>;


export type SessionFilesQuery = { sessionFiles: Array<{ id: string, name: string, size: number, sha256: string, path: string, uploadedAt: string, available: boolean }> };

export type ExtensionFieldsFragment = { id: string, name: string, version: string, sizeBytes: number, sha256: string, createdAt: string };

export type ExtensionsQueryVariables = Exact<{
  workspace: string;
}>;


export type ExtensionsQuery = { extensions: Array<{ id: string, name: string, version: string, sizeBytes: number, sha256: string, createdAt: string }> };

export type UploadExtensionMutationVariables = Exact<{
  workspace: string;
  zipBase64: string;
}>;


export type UploadExtensionMutation = { uploadExtension: { id: string, name: string, version: string, sizeBytes: number, sha256: string, createdAt: string } };

export type DeleteExtensionMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type DeleteExtensionMutation = { deleteExtension: boolean };

export type SessionRecordingQueryVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type SessionRecordingQuery = { session: { id: string, recordingInfo: { status: RecordingStatus, sizeBytes: number | null, durationMs: number | null, width: number | null, height: number | null, startedAt: string, endedAt: string | null, readyAt: string | null, expiresAt: string, failure: string | null } | null } };

export type DeleteRecordingMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type DeleteRecordingMutation = { deleteRecording: boolean };

export type WebhookFieldsFragment = { id: string, url: string, events: Array<string>, description: string | null, enabled: boolean, disabledAt: string | null, disabledReason: string | null, previousSecretExpiresAt: string | null, createdAt: string, updatedAt: string };

export type WebhookDeliveryFieldsFragment = { id: string, webhookId: string, event: string, eventId: string | null, status: string, attempts: number, nextAttemptAt: string | null, lastAttemptAt: string | null, lastResponseCode: number | null, lastError: string | null, createdAt: string };

export type WebhooksQueryVariables = Exact<{
  workspace: string;
  cursor?: string | null | undefined;
}>;


export type WebhooksQuery = { webhooks: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, url: string, events: Array<string>, description: string | null, enabled: boolean, disabledAt: string | null, disabledReason: string | null, previousSecretExpiresAt: string | null, createdAt: string, updatedAt: string }> } };

export type WebhookDeliveriesQueryVariables = Exact<{
  workspace: string;
  id: string;
  cursor?: string | null | undefined;
}>;


export type WebhookDeliveriesQuery = { webhookDeliveries: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, webhookId: string, event: string, eventId: string | null, status: string, attempts: number, nextAttemptAt: string | null, lastAttemptAt: string | null, lastResponseCode: number | null, lastError: string | null, createdAt: string }> } };

export type CreateWebhookMutationVariables = Exact<{
  workspace: string;
  url: string;
  events: Array<string> | string;
  description?: string | null | undefined;
}>;


export type CreateWebhookMutation = { createWebhook: { secret: string, webhook: { id: string, url: string, events: Array<string>, description: string | null, enabled: boolean, disabledAt: string | null, disabledReason: string | null, previousSecretExpiresAt: string | null, createdAt: string, updatedAt: string } } };

export type UpdateWebhookMutationVariables = Exact<{
  workspace: string;
  id: string;
  enabled?: boolean | null | undefined;
  events?: Array<string> | string | null | undefined;
  url?: string | null | undefined;
  description?: string | null | undefined;
}>;


export type UpdateWebhookMutation = { updateWebhook: { id: string, url: string, events: Array<string>, description: string | null, enabled: boolean, disabledAt: string | null, disabledReason: string | null, previousSecretExpiresAt: string | null, createdAt: string, updatedAt: string } };

export type DeleteWebhookMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type DeleteWebhookMutation = { deleteWebhook: boolean };

export type RotateWebhookSecretMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type RotateWebhookSecretMutation = { rotateWebhookSecret: { secret: string, webhook: { id: string, url: string, events: Array<string>, description: string | null, enabled: boolean, disabledAt: string | null, disabledReason: string | null, previousSecretExpiresAt: string | null, createdAt: string, updatedAt: string } } };

export type TestWebhookMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type TestWebhookMutation = { testWebhook: { id: string, webhookId: string, event: string, eventId: string | null, status: string, attempts: number, nextAttemptAt: string | null, lastAttemptAt: string | null, lastResponseCode: number | null, lastError: string | null, createdAt: string } };

export type RetryWebhookDeliveryMutationVariables = Exact<{
  workspace: string;
  id: string;
  deliveryId: string;
}>;


export type RetryWebhookDeliveryMutation = { retryWebhookDelivery: { id: string, webhookId: string, event: string, eventId: string | null, status: string, attempts: number, nextAttemptAt: string | null, lastAttemptAt: string | null, lastResponseCode: number | null, lastError: string | null, createdAt: string } };

export type WorkspaceLimitsFieldsFragment = { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null };

export type WorkspaceSettingsFieldsFragment = { id: string, slug: string, name: string, createdAt: string, limits: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null }, effective: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null }, ownerBounds: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null } };

export type WorkspaceSettingsQueryVariables = Exact<{
  workspace: string;
}>;


export type WorkspaceSettingsQuery = { workspaceSettings: { id: string, slug: string, name: string, createdAt: string, limits: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null }, effective: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null }, ownerBounds: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null } } };

export type UpdateWorkspaceSettingsMutationVariables = Exact<{
  workspace: string;
  name?: string | null | undefined;
  maxSessions?: number | null | undefined;
  maxSessionSeconds?: number | null | undefined;
  queueWeight?: number | null | undefined;
  rateLimitPerMinute?: number | null | undefined;
}>;


export type UpdateWorkspaceSettingsMutation = { updateWorkspaceSettings: { id: string, slug: string, name: string, createdAt: string, limits: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null }, effective: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null }, ownerBounds: { maxSessions: number | null, maxSessionSeconds: number | null, queueWeight: number | null, rateLimitPerMinute: number | null } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const CredentialFieldsFragmentDoc = new TypedDocumentString(`
    fragment CredentialFields on Credential {
  id
  name
  origins
  usernameHint
  hasTotp
  createdAt
  updatedAt
  lastUsedAt
}
    `, {"fragmentName":"CredentialFields"}) as unknown as TypedDocumentString<CredentialFieldsFragment, unknown>;
export const SessionFieldsFragmentDoc = new TypedDocumentString(`
    fragment SessionFields on Session {
  id
  status
  endReason
  region
  createdAt
  startedAt
  expiresAt
  endedAt
  timeoutSeconds
  idleTimeoutSeconds
  profileId
  liveViewInteractive
  liveViewInstructions
  liveViewViewers
  queuePosition
  logs
  recording
  metadata {
    key
    value
  }
  profileLabel
  createdBy {
    kind
    keyPrefix
    keyLabel
    email
  }
}
    `, {"fragmentName":"SessionFields"}) as unknown as TypedDocumentString<SessionFieldsFragment, unknown>;
export const ProfileFieldsFragmentDoc = new TypedDocumentString(`
    fragment ProfileFields on Profile {
  profileId
  label
  sizeBytes
  cookieCount
  originCount
  keyCount
  sourceSessionId
  createdAt
  updatedAt
}
    `, {"fragmentName":"ProfileFields"}) as unknown as TypedDocumentString<ProfileFieldsFragment, unknown>;
export const SessionOptionsFragmentDoc = new TypedDocumentString(`
    fragment SessionOptions on Session {
  extensionIds
  browser {
    userAgent
    locale
    timezone
    viewport {
      width
      height
      deviceScaleFactor
      mobile
    }
    geolocation {
      latitude
      longitude
      accuracy
    }
  }
}
    `, {"fragmentName":"SessionOptions"}) as unknown as TypedDocumentString<SessionOptionsFragment, unknown>;
export const SessionFileFieldsFragmentDoc = new TypedDocumentString(`
    fragment SessionFileFields on SessionFile {
  id
  name
  size
  sha256
  path
  uploadedAt
  available
}
    `, {"fragmentName":"SessionFileFields"}) as unknown as TypedDocumentString<SessionFileFieldsFragment, unknown>;
export const ExtensionFieldsFragmentDoc = new TypedDocumentString(`
    fragment ExtensionFields on Extension {
  id
  name
  version
  sizeBytes
  sha256
  createdAt
}
    `, {"fragmentName":"ExtensionFields"}) as unknown as TypedDocumentString<ExtensionFieldsFragment, unknown>;
export const WebhookFieldsFragmentDoc = new TypedDocumentString(`
    fragment WebhookFields on Webhook {
  id
  url
  events
  description
  enabled
  disabledAt
  disabledReason
  previousSecretExpiresAt
  createdAt
  updatedAt
}
    `, {"fragmentName":"WebhookFields"}) as unknown as TypedDocumentString<WebhookFieldsFragment, unknown>;
export const WebhookDeliveryFieldsFragmentDoc = new TypedDocumentString(`
    fragment WebhookDeliveryFields on WebhookDelivery {
  id
  webhookId
  event
  eventId
  status
  attempts
  nextAttemptAt
  lastAttemptAt
  lastResponseCode
  lastError
  createdAt
}
    `, {"fragmentName":"WebhookDeliveryFields"}) as unknown as TypedDocumentString<WebhookDeliveryFieldsFragment, unknown>;
export const WorkspaceLimitsFieldsFragmentDoc = new TypedDocumentString(`
    fragment WorkspaceLimitsFields on WorkspaceLimits {
  maxSessions
  maxSessionSeconds
  queueWeight
  rateLimitPerMinute
}
    `, {"fragmentName":"WorkspaceLimitsFields"}) as unknown as TypedDocumentString<WorkspaceLimitsFieldsFragment, unknown>;
export const WorkspaceSettingsFieldsFragmentDoc = new TypedDocumentString(`
    fragment WorkspaceSettingsFields on WorkspaceSettings {
  id
  slug
  name
  createdAt
  limits {
    ...WorkspaceLimitsFields
  }
  effective {
    ...WorkspaceLimitsFields
  }
  ownerBounds {
    ...WorkspaceLimitsFields
  }
}
    fragment WorkspaceLimitsFields on WorkspaceLimits {
  maxSessions
  maxSessionSeconds
  queueWeight
  rateLimitPerMinute
}`, {"fragmentName":"WorkspaceSettingsFields"}) as unknown as TypedDocumentString<WorkspaceSettingsFieldsFragment, unknown>;
export const CredentialsDocument = new TypedDocumentString(`
    query Credentials($workspace: String!) {
  credentials(workspace: $workspace, limit: 100) {
    items {
      ...CredentialFields
    }
    nextCursor
    hasMore
  }
}
    fragment CredentialFields on Credential {
  id
  name
  origins
  usernameHint
  hasTotp
  createdAt
  updatedAt
  lastUsedAt
}`) as unknown as TypedDocumentString<CredentialsQuery, CredentialsQueryVariables>;
export const CreateCredentialDocument = new TypedDocumentString(`
    mutation CreateCredential($workspace: String!, $input: CreateCredentialInput!) {
  createCredential(workspace: $workspace, input: $input) {
    ...CredentialFields
  }
}
    fragment CredentialFields on Credential {
  id
  name
  origins
  usernameHint
  hasTotp
  createdAt
  updatedAt
  lastUsedAt
}`) as unknown as TypedDocumentString<CreateCredentialMutation, CreateCredentialMutationVariables>;
export const UpdateCredentialDocument = new TypedDocumentString(`
    mutation UpdateCredential($workspace: String!, $id: String!, $input: UpdateCredentialInput!) {
  updateCredential(workspace: $workspace, id: $id, input: $input) {
    ...CredentialFields
  }
}
    fragment CredentialFields on Credential {
  id
  name
  origins
  usernameHint
  hasTotp
  createdAt
  updatedAt
  lastUsedAt
}`) as unknown as TypedDocumentString<UpdateCredentialMutation, UpdateCredentialMutationVariables>;
export const DeleteCredentialDocument = new TypedDocumentString(`
    mutation DeleteCredential($workspace: String!, $id: String!) {
  deleteCredential(workspace: $workspace, id: $id)
}
    `) as unknown as TypedDocumentString<DeleteCredentialMutation, DeleteCredentialMutationVariables>;
export const RequestSignInDocument = new TypedDocumentString(`
    mutation RequestSignIn($email: String!, $codeChallenge: String!, $redirectTo: String) {
  requestSignIn(
    email: $email
    codeChallenge: $codeChallenge
    codeChallengeMethod: "S256"
    redirectTo: $redirectTo
  ) {
    linkLifetimeSeconds
    mailConfigured
  }
}
    `) as unknown as TypedDocumentString<RequestSignInMutation, RequestSignInMutationVariables>;
export const ExchangeSignInDocument = new TypedDocumentString(`
    mutation ExchangeSignIn($token: String!, $codeVerifier: String!) {
  exchangeSignIn(token: $token, codeVerifier: $codeVerifier) {
    accessTokenExpiresAt
    refreshTokenExpiresAt
    redirectTo
    me {
      id
      email
      organizationAdmin
    }
  }
}
    `) as unknown as TypedDocumentString<ExchangeSignInMutation, ExchangeSignInMutationVariables>;
export const RefreshSignInDocument = new TypedDocumentString(`
    mutation RefreshSignIn {
  refreshSignIn {
    accessTokenExpiresAt
    refreshTokenExpiresAt
  }
}
    `) as unknown as TypedDocumentString<RefreshSignInMutation, RefreshSignInMutationVariables>;
export const SignOutDocument = new TypedDocumentString(`
    mutation SignOut {
  signOut
}
    `) as unknown as TypedDocumentString<SignOutMutation, SignOutMutationVariables>;
export const MeDocument = new TypedDocumentString(`
    query Me {
  me {
    id
    email
    name
    organizationAdmin
    lastSignInAt
    workspaces {
      id
      slug
      name
      role
    }
    claimableWorkspaces {
      slug
      name
    }
  }
}
    `) as unknown as TypedDocumentString<MeQuery, MeQueryVariables>;
export const ClaimWorkspaceDocument = new TypedDocumentString(`
    mutation ClaimWorkspace($slug: String!) {
  claimWorkspace(slug: $slug) {
    id
    slug
    name
    role
  }
}
    `) as unknown as TypedDocumentString<ClaimWorkspaceMutation, ClaimWorkspaceMutationVariables>;
export const WorkspacesDocument = new TypedDocumentString(`
    query Workspaces {
  workspaces {
    id
    slug
    name
    role
    createdAt
  }
}
    `) as unknown as TypedDocumentString<WorkspacesQuery, WorkspacesQueryVariables>;
export const CreateWorkspaceDocument = new TypedDocumentString(`
    mutation CreateWorkspace($slug: String!, $name: String!) {
  createWorkspace(slug: $slug, name: $name) {
    id
    slug
    name
    role
  }
}
    `) as unknown as TypedDocumentString<CreateWorkspaceMutation, CreateWorkspaceMutationVariables>;
export const MembersDocument = new TypedDocumentString(`
    query Members($workspace: String!) {
  members(workspace: $workspace) {
    userId
    email
    name
    role
    joinedAt
  }
}
    `) as unknown as TypedDocumentString<MembersQuery, MembersQueryVariables>;
export const ChangeMemberRoleDocument = new TypedDocumentString(`
    mutation ChangeMemberRole($workspace: String!, $userId: String!, $role: Role!) {
  changeMemberRole(workspace: $workspace, userId: $userId, role: $role) {
    userId
    role
  }
}
    `) as unknown as TypedDocumentString<ChangeMemberRoleMutation, ChangeMemberRoleMutationVariables>;
export const RemoveMemberDocument = new TypedDocumentString(`
    mutation RemoveMember($workspace: String!, $userId: String!) {
  removeMember(workspace: $workspace, userId: $userId) {
    userId
  }
}
    `) as unknown as TypedDocumentString<RemoveMemberMutation, RemoveMemberMutationVariables>;
export const InvitationsDocument = new TypedDocumentString(`
    query Invitations($workspace: String!) {
  invitations(workspace: $workspace) {
    id
    email
    role
    status
    createdAt
    expiresAt
    acceptedAt
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<InvitationsQuery, InvitationsQueryVariables>;
export const CreateInvitationDocument = new TypedDocumentString(`
    mutation CreateInvitation($workspace: String!, $email: String!, $role: Role!) {
  createInvitation(workspace: $workspace, email: $email, role: $role) {
    id
    email
    role
    status
    expiresAt
    signInLink
  }
}
    `) as unknown as TypedDocumentString<CreateInvitationMutation, CreateInvitationMutationVariables>;
export const RevokeInvitationDocument = new TypedDocumentString(`
    mutation RevokeInvitation($workspace: String!, $id: String!) {
  revokeInvitation(workspace: $workspace, id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<RevokeInvitationMutation, RevokeInvitationMutationVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys($workspace: String!) {
  apiKeys(workspace: $workspace) {
    id
    label
    prefix
    createdAt
    createdByUserId
    lastUsedAt
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($workspace: String!, $label: String!, $scopes: [String!]) {
  createApiKey(workspace: $workspace, label: $label, scopes: $scopes) {
    secret
    apiKey {
      id
      label
      prefix
      createdAt
      scopes
    }
  }
}
    `) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($workspace: String!, $id: String!, $endSessions: Boolean) {
  revokeApiKey(workspace: $workspace, id: $id, endSessions: $endSessions) {
    id
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const AuditLogDocument = new TypedDocumentString(`
    query AuditLog($workspace: String!, $keyPrefix: String, $action: String, $actorUserId: String, $target: String, $since: DateTime, $until: DateTime, $changesOnly: Boolean, $limit: Int, $cursor: String) {
  auditLog(
    workspace: $workspace
    keyPrefix: $keyPrefix
    action: $action
    actorUserId: $actorUserId
    target: $target
    since: $since
    until: $until
    changesOnly: $changesOnly
    limit: $limit
    cursor: $cursor
  ) {
    items {
      id
      keyPrefix
      actorUserId
      action
      target
      httpStatus
      ip
      requestId
      clientRequestId
      createdAt
    }
    nextCursor
    hasMore
  }
}
    `) as unknown as TypedDocumentString<AuditLogQuery, AuditLogQueryVariables>;
export const RegionsDocument = new TypedDocumentString(`
    query Regions {
  health {
    regions
  }
}
    `) as unknown as TypedDocumentString<RegionsQuery, RegionsQueryVariables>;
export const SessionsDocument = new TypedDocumentString(`
    query Sessions($workspace: String!, $status: SessionStatus, $metadata: [MetadataEntryInput!], $limit: Int, $cursor: String) {
  sessions(
    workspace: $workspace
    status: $status
    metadata: $metadata
    newestFirst: true
    limit: $limit
    cursor: $cursor
  ) {
    items {
      ...SessionFields
      currentPage {
        title
        url
      }
    }
    nextCursor
    hasMore
  }
}
    fragment SessionFields on Session {
  id
  status
  endReason
  region
  createdAt
  startedAt
  expiresAt
  endedAt
  timeoutSeconds
  idleTimeoutSeconds
  profileId
  liveViewInteractive
  liveViewInstructions
  liveViewViewers
  queuePosition
  logs
  recording
  metadata {
    key
    value
  }
  profileLabel
  createdBy {
    kind
    keyPrefix
    keyLabel
    email
  }
}`) as unknown as TypedDocumentString<SessionsQuery, SessionsQueryVariables>;
export const SessionDocument = new TypedDocumentString(`
    query Session($workspace: String!, $id: String!) {
  session(workspace: $workspace, id: $id) {
    ...SessionFields
    connectUrl
    liveViewUrl
    ...SessionOptions
  }
}
    fragment SessionFields on Session {
  id
  status
  endReason
  region
  createdAt
  startedAt
  expiresAt
  endedAt
  timeoutSeconds
  idleTimeoutSeconds
  profileId
  liveViewInteractive
  liveViewInstructions
  liveViewViewers
  queuePosition
  logs
  recording
  metadata {
    key
    value
  }
  profileLabel
  createdBy {
    kind
    keyPrefix
    keyLabel
    email
  }
}
fragment SessionOptions on Session {
  extensionIds
  browser {
    userAgent
    locale
    timezone
    viewport {
      width
      height
      deviceScaleFactor
      mobile
    }
    geolocation {
      latitude
      longitude
      accuracy
    }
  }
}`) as unknown as TypedDocumentString<SessionQuery, SessionQueryVariables>;
export const WorkspaceSessionsDocument = new TypedDocumentString(`
    subscription WorkspaceSessions($workspace: String!) {
  workspaceSessions(workspace: $workspace) {
    ...SessionFields
  }
}
    fragment SessionFields on Session {
  id
  status
  endReason
  region
  createdAt
  startedAt
  expiresAt
  endedAt
  timeoutSeconds
  idleTimeoutSeconds
  profileId
  liveViewInteractive
  liveViewInstructions
  liveViewViewers
  queuePosition
  logs
  recording
  metadata {
    key
    value
  }
  profileLabel
  createdBy {
    kind
    keyPrefix
    keyLabel
    email
  }
}`) as unknown as TypedDocumentString<WorkspaceSessionsSubscription, WorkspaceSessionsSubscriptionVariables>;
export const CreateSessionDocument = new TypedDocumentString(`
    mutation CreateSession($workspace: String!, $idempotencyKey: String!, $input: CreateSessionInput!) {
  createSession(
    workspace: $workspace
    idempotencyKey: $idempotencyKey
    input: $input
  ) {
    ...SessionFields
    connectUrl
    liveViewUrl
  }
}
    fragment SessionFields on Session {
  id
  status
  endReason
  region
  createdAt
  startedAt
  expiresAt
  endedAt
  timeoutSeconds
  idleTimeoutSeconds
  profileId
  liveViewInteractive
  liveViewInstructions
  liveViewViewers
  queuePosition
  logs
  recording
  metadata {
    key
    value
  }
  profileLabel
  createdBy {
    kind
    keyPrefix
    keyLabel
    email
  }
}`) as unknown as TypedDocumentString<CreateSessionMutation, CreateSessionMutationVariables>;
export const ReleaseSessionDocument = new TypedDocumentString(`
    mutation ReleaseSession($workspace: String!, $id: String!) {
  releaseSession(workspace: $workspace, id: $id)
}
    `) as unknown as TypedDocumentString<ReleaseSessionMutation, ReleaseSessionMutationVariables>;
export const ForceStopSessionDocument = new TypedDocumentString(`
    mutation ForceStopSession($id: String!) {
  forceStopSession(id: $id)
}
    `) as unknown as TypedDocumentString<ForceStopSessionMutation, ForceStopSessionMutationVariables>;
export const RevokeLiveViewsDocument = new TypedDocumentString(`
    mutation RevokeLiveViews($id: String!) {
  revokeLiveViews(id: $id)
}
    `) as unknown as TypedDocumentString<RevokeLiveViewsMutation, RevokeLiveViewsMutationVariables>;
export const SessionEventsDocument = new TypedDocumentString(`
    query SessionEvents($sessionId: String!, $after: String) {
  sessionEvents(sessionId: $sessionId, after: $after, limit: 100) {
    items {
      id
      type
      createdAt
      data
    }
    nextCursor
    hasMore
  }
}
    `) as unknown as TypedDocumentString<SessionEventsQuery, SessionEventsQueryVariables>;
export const SessionEventsFeedDocument = new TypedDocumentString(`
    subscription SessionEventsFeed($sessionId: String!, $after: String) {
  sessionEvents(sessionId: $sessionId, after: $after) {
    id
    type
    createdAt
    data
  }
}
    `) as unknown as TypedDocumentString<SessionEventsFeedSubscription, SessionEventsFeedSubscriptionVariables>;
export const ProfilesDocument = new TypedDocumentString(`
    query Profiles($workspace: String!, $limit: Int, $cursor: String) {
  profiles(workspace: $workspace, limit: $limit, cursor: $cursor) {
    items {
      ...ProfileFields
    }
    nextCursor
    hasMore
  }
}
    fragment ProfileFields on Profile {
  profileId
  label
  sizeBytes
  cookieCount
  originCount
  keyCount
  sourceSessionId
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<ProfilesQuery, ProfilesQueryVariables>;
export const SaveSessionAsProfileDocument = new TypedDocumentString(`
    mutation SaveSessionAsProfile($workspace: String!, $sessionId: String!, $label: String!) {
  createProfile(
    workspace: $workspace
    input: {label: $label, sessionId: $sessionId}
  ) {
    ...ProfileFields
  }
}
    fragment ProfileFields on Profile {
  profileId
  label
  sizeBytes
  cookieCount
  originCount
  keyCount
  sourceSessionId
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<SaveSessionAsProfileMutation, SaveSessionAsProfileMutationVariables>;
export const UpdateProfileDocument = new TypedDocumentString(`
    mutation UpdateProfile($workspace: String!, $id: String!, $label: String!) {
  updateProfile(workspace: $workspace, id: $id, label: $label) {
    ...ProfileFields
  }
}
    fragment ProfileFields on Profile {
  profileId
  label
  sizeBytes
  cookieCount
  originCount
  keyCount
  sourceSessionId
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateProfileMutation, UpdateProfileMutationVariables>;
export const DeleteProfileDocument = new TypedDocumentString(`
    mutation DeleteProfile($workspace: String!, $id: String!) {
  deleteProfile(workspace: $workspace, id: $id)
}
    `) as unknown as TypedDocumentString<DeleteProfileMutation, DeleteProfileMutationVariables>;
export const ProfileStorageStateDocument = new TypedDocumentString(`
    query ProfileStorageState($workspace: String!, $id: String!) {
  profileStorageState(workspace: $workspace, id: $id) {
    cookies {
      name
      value
      domain
      path
      expires
      httpOnly
      secure
      sameSite
      partitionKey
    }
    origins {
      origin
      localStorage {
        name
        value
      }
      sessionStorage {
        name
        value
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ProfileStorageStateQuery, ProfileStorageStateQueryVariables>;
export const HealthDocument = new TypedDocumentString(`
    query Health {
  health {
    status
    version
    regions
    database {
      status
      kind
      latencyMs
    }
    browserPool {
      state
      capacity
      inUse
      warm
    }
  }
}
    `) as unknown as TypedDocumentString<HealthQuery, HealthQueryVariables>;
export const NetworkPolicyDocument = new TypedDocumentString(`
    query NetworkPolicy($workspace: String!) {
  networkPolicy(workspace: $workspace) {
    allow
    deny
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<NetworkPolicyQuery, NetworkPolicyQueryVariables>;
export const SetNetworkPolicyDocument = new TypedDocumentString(`
    mutation SetNetworkPolicy($workspace: String!, $allow: [String!]!, $deny: [String!]!) {
  setNetworkPolicy(workspace: $workspace, allow: $allow, deny: $deny) {
    allow
    deny
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<SetNetworkPolicyMutation, SetNetworkPolicyMutationVariables>;
export const SessionLogsDocument = new TypedDocumentString(`
    query SessionLogs($workspace: String!, $id: String!, $after: Int, $cursor: String) {
  sessionLogs(
    workspace: $workspace
    id: $id
    after: $after
    first: 1000
    cursor: $cursor
    types: ["console", "page_error", "navigation", "network", "cdp"]
  ) {
    items {
      seq
      type
      at
      data
    }
    nextCursor
    hasMore
  }
}
    `) as unknown as TypedDocumentString<SessionLogsQuery, SessionLogsQueryVariables>;
export const SessionLogsFeedDocument = new TypedDocumentString(`
    subscription SessionLogsFeed($workspace: String!, $id: String!, $after: Int) {
  sessionLogs(
    workspace: $workspace
    id: $id
    after: $after
    types: ["console", "page_error", "navigation", "network", "cdp"]
  ) {
    seq
    type
    at
    data
  }
}
    `) as unknown as TypedDocumentString<SessionLogsFeedSubscription, SessionLogsFeedSubscriptionVariables>;
export const SessionFilesDocument = new TypedDocumentString(`
    query SessionFiles($sessionId: String!) {
  sessionFiles(sessionId: $sessionId) {
    ...SessionFileFields
  }
}
    fragment SessionFileFields on SessionFile {
  id
  name
  size
  sha256
  path
  uploadedAt
  available
}`) as unknown as TypedDocumentString<SessionFilesQuery, SessionFilesQueryVariables>;
export const ExtensionsDocument = new TypedDocumentString(`
    query Extensions($workspace: String!) {
  extensions(workspace: $workspace) {
    ...ExtensionFields
  }
}
    fragment ExtensionFields on Extension {
  id
  name
  version
  sizeBytes
  sha256
  createdAt
}`) as unknown as TypedDocumentString<ExtensionsQuery, ExtensionsQueryVariables>;
export const UploadExtensionDocument = new TypedDocumentString(`
    mutation UploadExtension($workspace: String!, $zipBase64: String!) {
  uploadExtension(workspace: $workspace, zipBase64: $zipBase64) {
    ...ExtensionFields
  }
}
    fragment ExtensionFields on Extension {
  id
  name
  version
  sizeBytes
  sha256
  createdAt
}`) as unknown as TypedDocumentString<UploadExtensionMutation, UploadExtensionMutationVariables>;
export const DeleteExtensionDocument = new TypedDocumentString(`
    mutation DeleteExtension($workspace: String!, $id: String!) {
  deleteExtension(workspace: $workspace, id: $id)
}
    `) as unknown as TypedDocumentString<DeleteExtensionMutation, DeleteExtensionMutationVariables>;
export const SessionRecordingDocument = new TypedDocumentString(`
    query SessionRecording($workspace: String!, $id: String!) {
  session(workspace: $workspace, id: $id) {
    id
    recordingInfo {
      status
      sizeBytes
      durationMs
      width
      height
      startedAt
      endedAt
      readyAt
      expiresAt
      failure
    }
  }
}
    `) as unknown as TypedDocumentString<SessionRecordingQuery, SessionRecordingQueryVariables>;
export const DeleteRecordingDocument = new TypedDocumentString(`
    mutation DeleteRecording($workspace: String!, $id: String!) {
  deleteRecording(workspace: $workspace, id: $id)
}
    `) as unknown as TypedDocumentString<DeleteRecordingMutation, DeleteRecordingMutationVariables>;
export const WebhooksDocument = new TypedDocumentString(`
    query Webhooks($workspace: String!, $cursor: String) {
  webhooks(workspace: $workspace, limit: 100, cursor: $cursor) {
    items {
      ...WebhookFields
    }
    nextCursor
    hasMore
  }
}
    fragment WebhookFields on Webhook {
  id
  url
  events
  description
  enabled
  disabledAt
  disabledReason
  previousSecretExpiresAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<WebhooksQuery, WebhooksQueryVariables>;
export const WebhookDeliveriesDocument = new TypedDocumentString(`
    query WebhookDeliveries($workspace: String!, $id: String!, $cursor: String) {
  webhookDeliveries(workspace: $workspace, id: $id, limit: 50, cursor: $cursor) {
    items {
      ...WebhookDeliveryFields
    }
    nextCursor
    hasMore
  }
}
    fragment WebhookDeliveryFields on WebhookDelivery {
  id
  webhookId
  event
  eventId
  status
  attempts
  nextAttemptAt
  lastAttemptAt
  lastResponseCode
  lastError
  createdAt
}`) as unknown as TypedDocumentString<WebhookDeliveriesQuery, WebhookDeliveriesQueryVariables>;
export const CreateWebhookDocument = new TypedDocumentString(`
    mutation CreateWebhook($workspace: String!, $url: String!, $events: [String!]!, $description: String) {
  createWebhook(
    workspace: $workspace
    url: $url
    events: $events
    description: $description
  ) {
    secret
    webhook {
      ...WebhookFields
    }
  }
}
    fragment WebhookFields on Webhook {
  id
  url
  events
  description
  enabled
  disabledAt
  disabledReason
  previousSecretExpiresAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateWebhookMutation, CreateWebhookMutationVariables>;
export const UpdateWebhookDocument = new TypedDocumentString(`
    mutation UpdateWebhook($workspace: String!, $id: String!, $enabled: Boolean, $events: [String!], $url: String, $description: String) {
  updateWebhook(
    workspace: $workspace
    id: $id
    enabled: $enabled
    events: $events
    url: $url
    description: $description
  ) {
    ...WebhookFields
  }
}
    fragment WebhookFields on Webhook {
  id
  url
  events
  description
  enabled
  disabledAt
  disabledReason
  previousSecretExpiresAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateWebhookMutation, UpdateWebhookMutationVariables>;
export const DeleteWebhookDocument = new TypedDocumentString(`
    mutation DeleteWebhook($workspace: String!, $id: String!) {
  deleteWebhook(workspace: $workspace, id: $id)
}
    `) as unknown as TypedDocumentString<DeleteWebhookMutation, DeleteWebhookMutationVariables>;
export const RotateWebhookSecretDocument = new TypedDocumentString(`
    mutation RotateWebhookSecret($workspace: String!, $id: String!) {
  rotateWebhookSecret(workspace: $workspace, id: $id) {
    secret
    webhook {
      ...WebhookFields
    }
  }
}
    fragment WebhookFields on Webhook {
  id
  url
  events
  description
  enabled
  disabledAt
  disabledReason
  previousSecretExpiresAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<RotateWebhookSecretMutation, RotateWebhookSecretMutationVariables>;
export const TestWebhookDocument = new TypedDocumentString(`
    mutation TestWebhook($workspace: String!, $id: String!) {
  testWebhook(workspace: $workspace, id: $id) {
    ...WebhookDeliveryFields
  }
}
    fragment WebhookDeliveryFields on WebhookDelivery {
  id
  webhookId
  event
  eventId
  status
  attempts
  nextAttemptAt
  lastAttemptAt
  lastResponseCode
  lastError
  createdAt
}`) as unknown as TypedDocumentString<TestWebhookMutation, TestWebhookMutationVariables>;
export const RetryWebhookDeliveryDocument = new TypedDocumentString(`
    mutation RetryWebhookDelivery($workspace: String!, $id: String!, $deliveryId: String!) {
  retryWebhookDelivery(workspace: $workspace, id: $id, deliveryId: $deliveryId) {
    ...WebhookDeliveryFields
  }
}
    fragment WebhookDeliveryFields on WebhookDelivery {
  id
  webhookId
  event
  eventId
  status
  attempts
  nextAttemptAt
  lastAttemptAt
  lastResponseCode
  lastError
  createdAt
}`) as unknown as TypedDocumentString<RetryWebhookDeliveryMutation, RetryWebhookDeliveryMutationVariables>;
export const WorkspaceSettingsDocument = new TypedDocumentString(`
    query WorkspaceSettings($workspace: String!) {
  workspaceSettings(workspace: $workspace) {
    ...WorkspaceSettingsFields
  }
}
    fragment WorkspaceLimitsFields on WorkspaceLimits {
  maxSessions
  maxSessionSeconds
  queueWeight
  rateLimitPerMinute
}
fragment WorkspaceSettingsFields on WorkspaceSettings {
  id
  slug
  name
  createdAt
  limits {
    ...WorkspaceLimitsFields
  }
  effective {
    ...WorkspaceLimitsFields
  }
  ownerBounds {
    ...WorkspaceLimitsFields
  }
}`) as unknown as TypedDocumentString<WorkspaceSettingsQuery, WorkspaceSettingsQueryVariables>;
export const UpdateWorkspaceSettingsDocument = new TypedDocumentString(`
    mutation UpdateWorkspaceSettings($workspace: String!, $name: String, $maxSessions: Int, $maxSessionSeconds: Int, $queueWeight: Int, $rateLimitPerMinute: Int) {
  updateWorkspaceSettings(
    workspace: $workspace
    name: $name
    maxSessions: $maxSessions
    maxSessionSeconds: $maxSessionSeconds
    queueWeight: $queueWeight
    rateLimitPerMinute: $rateLimitPerMinute
  ) {
    ...WorkspaceSettingsFields
  }
}
    fragment WorkspaceLimitsFields on WorkspaceLimits {
  maxSessions
  maxSessionSeconds
  queueWeight
  rateLimitPerMinute
}
fragment WorkspaceSettingsFields on WorkspaceSettings {
  id
  slug
  name
  createdAt
  limits {
    ...WorkspaceLimitsFields
  }
  effective {
    ...WorkspaceLimitsFields
  }
  ownerBounds {
    ...WorkspaceLimitsFields
  }
}`) as unknown as TypedDocumentString<UpdateWorkspaceSettingsMutation, UpdateWorkspaceSettingsMutationVariables>;