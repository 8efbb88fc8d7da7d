import { createContext, useContext } from "react";
import type { MeQuery, Role } from "@gql/graphql.ts";

export type Me = MeQuery["me"];
export type WorkspaceRef = Me["workspaces"][number];

export interface SignedInContext {
  me: Me;
  reloadMe: () => Promise<void>;
  signOut: () => Promise<void>;
}

export const MeContext = createContext<SignedInContext | null>(null);

export function useMe(): SignedInContext {
  const ctx = useContext(MeContext);
  if (!ctx) throw new Error("useMe outside the signed-in app");
  return ctx;
}

/** The workspace a page shows, and what the signed-in person may do in it. */
export interface CurrentWorkspace extends WorkspaceRef {
  /** Owners and admins: API keys, invitations, members below owner, audit log, force-stop. */
  canAdmin: boolean;
  isOwner: boolean;
}

export const WorkspaceContext = createContext<CurrentWorkspace | null>(null);

export function useWorkspace(): CurrentWorkspace {
  const ws = useContext(WorkspaceContext);
  if (!ws) throw new Error("useWorkspace outside a workspace page");
  return ws;
}

export function currentWorkspace(ws: WorkspaceRef): CurrentWorkspace {
  return { ...ws, canAdmin: ws.role === "OWNER" || ws.role === "ADMIN", isOwner: ws.role === "OWNER" };
}

export const roleLabel: Record<Role, string> = { OWNER: "Owner", ADMIN: "Admin", MEMBER: "Member" };

export const roleHelp: Record<Role, string> = {
  OWNER: "Everything, including owners and the workspace itself",
  ADMIN: "API keys, invitations, members below owner, audit log, force-stop",
  MEMBER: "Sessions and profiles; reads keys and members",
};

const LAST_WORKSPACE = "vessel.workspace";

export function rememberWorkspace(slug: string): void {
  localStorage.setItem(LAST_WORKSPACE, slug);
}

export function lastWorkspace(): string | null {
  return localStorage.getItem(LAST_WORKSPACE);
}

export const wsPath = (slug: string, rest = "sessions") => `/dashboard/w/${encodeURIComponent(slug)}/${rest}`;
