/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type BrowserPoolState =
  | 'READY'
  | 'UNAVAILABLE';

export type DatabaseKind =
  | 'PGLITE'
  | 'POSTGRES';

export type DependencyStatus =
  | 'OK'
  | 'UNAVAILABLE';

export type HealthStatus =
  | 'DEGRADED'
  | 'OK';

export type InvitationStatus =
  | 'ACCEPTED'
  | 'EXPIRED'
  | 'PENDING'
  | 'REVOKED';

/** OWNER: everything, owners included. ADMIN: API keys, invitations, members below owner, audit log. MEMBER: reads. */
export type Role =
  | 'ADMIN'
  | 'MEMBER'
  | 'OWNER';

export type RequestSignInMutationVariables = Exact<{
  email: string;
  codeChallenge: string;
  redirectTo?: string | null | undefined;
}>;


export type RequestSignInMutation = { requestSignIn: { linkLifetimeSeconds: number } };

export type ExchangeSignInMutationVariables = Exact<{
  token: string;
  codeVerifier: string;
}>;


export type ExchangeSignInMutation = { exchangeSignIn: { accessTokenExpiresAt: unknown, refreshTokenExpiresAt: unknown, redirectTo: string | null, me: { id: string, email: string, organizationAdmin: boolean } } };

export type RefreshSessionMutationVariables = Exact<{ [key: string]: never; }>;


export type RefreshSessionMutation = { refreshSession: { accessTokenExpiresAt: unknown, refreshTokenExpiresAt: unknown } };

export type SignOutMutationVariables = Exact<{ [key: string]: never; }>;


export type SignOutMutation = { signOut: boolean };

export type MeQueryVariables = Exact<{ [key: string]: never; }>;


export type MeQuery = { me: { id: string, email: string, name: string | null, organizationAdmin: boolean, lastSignInAt: unknown, workspaces: Array<{ id: string, slug: string, name: string, role: Role }> } };

export type WorkspacesQueryVariables = Exact<{ [key: string]: never; }>;


export type WorkspacesQuery = { workspaces: Array<{ id: string, slug: string, name: string, role: Role, createdAt: unknown }> };

export type CreateWorkspaceMutationVariables = Exact<{
  slug: string;
  name: string;
}>;


export type CreateWorkspaceMutation = { createWorkspace: { id: string, slug: string, name: string, role: Role } };

export type MembersQueryVariables = Exact<{
  workspace: string;
}>;


export type MembersQuery = { members: Array<{ userId: string, email: string, name: string | null, role: Role, joinedAt: unknown }> };

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


export type InvitationsQuery = { invitations: Array<{ id: string, email: string, role: Role, status: InvitationStatus, createdAt: unknown, expiresAt: unknown, acceptedAt: unknown, revokedAt: unknown }> };

export type CreateInvitationMutationVariables = Exact<{
  workspace: string;
  email: string;
  role: Role;
}>;


export type CreateInvitationMutation = { createInvitation: { id: string, email: string, role: Role, status: InvitationStatus, expiresAt: unknown } };

export type RevokeInvitationMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type RevokeInvitationMutation = { revokeInvitation: { id: string, status: InvitationStatus } };

export type ApiKeysQueryVariables = Exact<{
  workspace: string;
}>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, label: string, prefix: string, createdAt: unknown, createdByUserId: string | null, lastUsedAt: unknown, revokedAt: unknown }> };

export type CreateApiKeyMutationVariables = Exact<{
  workspace: string;
  label: string;
}>;


export type CreateApiKeyMutation = { createApiKey: { secret: string, apiKey: { id: string, label: string, prefix: string, createdAt: unknown } } };

export type RevokeApiKeyMutationVariables = Exact<{
  workspace: string;
  id: string;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string, revokedAt: unknown } };

export type AuditLogQueryVariables = Exact<{
  workspace: string;
  keyPrefix?: string | null | undefined;
  action?: string | null | undefined;
  actorUserId?: string | null | undefined;
  target?: string | null | undefined;
  since?: unknown;
  until?: unknown;
  limit?: number | null | undefined;
  cursor?: string | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { nextCursor: string | null, hasMore: boolean, items: Array<{ id: string, keyPrefix: string | null, actorUserId: string | null, action: string, target: string | null, httpStatus: number, createdAt: unknown }> } };

export type HealthQueryVariables = Exact<{ [key: string]: never; }>;


export type HealthQuery = { health: { status: HealthStatus, version: string, regions: Array<string>, database: { status: DependencyStatus, kind: DatabaseKind, latencyMs: number | null }, browserPool: { state: BrowserPoolState, capacity: number, inUse: number, warm: number } } };

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

export const RequestSignInDocument = new TypedDocumentString(`
    mutation RequestSignIn($email: String!, $codeChallenge: String!, $redirectTo: String) {
  requestSignIn(
    email: $email
    codeChallenge: $codeChallenge
    codeChallengeMethod: "S256"
    redirectTo: $redirectTo
  ) {
    linkLifetimeSeconds
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
export const RefreshSessionDocument = new TypedDocumentString(`
    mutation RefreshSession {
  refreshSession {
    accessTokenExpiresAt
    refreshTokenExpiresAt
  }
}
    `) as unknown as TypedDocumentString<RefreshSessionMutation, RefreshSessionMutationVariables>;
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
  }
}
    `) as unknown as TypedDocumentString<MeQuery, MeQueryVariables>;
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
    mutation CreateApiKey($workspace: String!, $label: String!) {
  createApiKey(workspace: $workspace, label: $label) {
    secret
    apiKey {
      id
      label
      prefix
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($workspace: String!, $id: String!) {
  revokeApiKey(workspace: $workspace, id: $id) {
    id
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const AuditLogDocument = new TypedDocumentString(`
    query AuditLog($workspace: String!, $keyPrefix: String, $action: String, $actorUserId: String, $target: String, $since: DateTime, $until: DateTime, $limit: Int, $cursor: String) {
  auditLog(
    workspace: $workspace
    keyPrefix: $keyPrefix
    action: $action
    actorUserId: $actorUserId
    target: $target
    since: $since
    until: $until
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
      createdAt
    }
    nextCursor
    hasMore
  }
}
    `) as unknown as TypedDocumentString<AuditLogQuery, AuditLogQueryVariables>;
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