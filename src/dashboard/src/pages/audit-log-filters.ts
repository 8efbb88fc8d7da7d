export const knownActions = [
  "session.create",
  "session.get",
  "session.list",
  "session.release",
  "session.force_stop",
  "session.keepalive",
  "session.events",
  "session.logs.read",
  "session.watch",
  "session.live_view_revoke",
  "profile.create",
  "profile.get",
  "profile.list",
  "profile.save",
  "profile.update",
  "profile.delete",
  "profile.export",
  "api_key.create",
  "api_key.revoke",
  "api_key.list",
  "audit.list",
  "member.list",
  "member.change_role",
  "member.remove",
  "invitation.create",
  "invitation.revoke",
  "invitation.list",
  "workspace.create",
  "workspace.list",
  "health.get",
  // MCP tool calls (docs/mcp.md): the hand-off to a person, and the browser tools.
  "session.ask_human",
  "session.wait_for_human",
  "mcp.navigate",
  "mcp.snapshot",
  "mcp.click",
  "mcp.type",
  "mcp.press_key",
  "mcp.scroll",
  "mcp.screenshot",
  "mcp.list_tabs",
  "mcp.switch_tab",
  // Calls refused at authentication with one of this workspace's key ids, and how many more the limit held back.
  "auth.refused",
  "auth.refused.summary",
];

/** `2025-06-01T10:30` in the browser's zone ↔ ISO instants. */
export function toIso(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

export function statusTone(status: number): "green" | "amber" | "red" {
  return status < 400 ? "green" : status < 500 ? "amber" : "red";
}
