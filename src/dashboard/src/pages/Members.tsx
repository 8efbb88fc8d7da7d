import { useState } from "react";
import {
  ChangeMemberRoleDocument,
  InvitationsDocument,
  MembersDocument,
  RemoveMemberDocument,
  RevokeInvitationDocument,
  type InvitationStatus,
  type InvitationsQuery,
  type MembersQuery,
  type Role,
} from "@gql/graphql.ts";
import { formatDate, formatDateTime, formatRelative } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { roleHelp, roleLabel, useMe, useWorkspace } from "../lib/me.tsx";
import { navigate } from "../lib/router.tsx";
import { Badge, Button, ErrorNotice, PageHeader, SkeletonRows } from "../components/ui.tsx";
import { ConfirmDialog } from "../components/dialogs.tsx";
import { useToast } from "../components/toasts.tsx";
import { roles, InviteForm } from "./InviteForm.tsx";

type Member = MembersQuery["members"][number];
type Invitation = InvitationsQuery["invitations"][number];

const invitationTone: Record<InvitationStatus, "amber" | "green" | "neutral" | "red"> = {
  PENDING: "amber",
  ACCEPTED: "green",
  EXPIRED: "neutral",
  REVOKED: "neutral",
};

export function MembersPage() {
  const ws = useWorkspace();
  const { me, reloadMe } = useMe();
  const toast = useToast();
  const now = useNow(60_000);
  const members = useQuery(MembersDocument, { workspace: ws.slug });
  const invitations = useQuery(InvitationsDocument, { workspace: ws.slug }, { skip: !ws.canAdmin });
  const change = useMutation(ChangeMemberRoleDocument);
  const remove = useMutation(RemoveMemberDocument);
  const revokeInvite = useMutation(RevokeInvitationDocument);
  const [removing, setRemoving] = useState<Member | null>(null);
  useTitle("Members");

  const list = members.data?.members ?? [];
  const owners = list.filter((m) => m.role === "OWNER").length;

  /** What the signed-in person may do to a member (the server decides; this only avoids offering what it refuses). */
  const canChange = (m: Member) => ws.isOwner || (ws.canAdmin && m.role !== "OWNER");
  const canRemove = (m: Member) => m.userId === me.id || canChange(m);
  const roleChoices = (m: Member) => roles.filter((r) => ws.isOwner || r !== "OWNER" || m.role === "OWNER");

  const changeRole = async (m: Member, role: Role) => {
    const done = await change.run({ workspace: ws.slug, userId: m.userId, role });
    if (done) {
      members.set((prev) => prev && { members: prev.members.map((x) => (x.userId === m.userId ? { ...x, role: done.changeMemberRole.role } : x)) });
      toast(`${m.email} is now ${roleLabel[done.changeMemberRole.role].toLowerCase()}`);
      if (m.userId === me.id) void reloadMe();
    }
  };

  const doRemove = async () => {
    if (!removing) return;
    const leaving = removing.userId === me.id;
    const done = await remove.run({ workspace: ws.slug, userId: removing.userId });
    if (!done) return;
    setRemoving(null);
    if (leaving) {
      toast(`You left ${ws.name}`);
      await reloadMe();
      navigate("/dashboard/");
      return;
    }
    members.set((prev) => prev && { members: prev.members.filter((x) => x.userId !== removing.userId) });
    toast(`${removing.email} removed`);
  };

  return (
    <>
      <PageHeader title="Members" description={<>People who can sign in to {ws.name}, and what they may do.</>} />

      <section aria-labelledby="members-title" className="section">
        <h2 id="members-title" className="section-title">
          Members <span className="muted">{list.length || ""}</span>
        </h2>
        {members.error && !members.data ? (
          <ErrorNotice error={members.error} onRetry={() => void members.reload()} />
        ) : (
          <div className="table-wrap">
            <table className="table responsive-table">
              <caption className="visually-hidden">Members</caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Role</th>
                  <th scope="col">Joined</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {!members.data ? (
                  <SkeletonRows cols={4} rows={2} />
                ) : (
                  list.map((m) => (
                    <tr key={m.userId} data-member={m.email}>
                      <td data-label="Person">
                        <span className="person">
                          <span className="avatar small" aria-hidden="true">
                            {(m.name ?? m.email).slice(0, 1).toUpperCase()}
                          </span>
                          <span>
                            <span className="strong">{m.name ?? m.email}</span>
                            {m.userId === me.id ? <span className="muted"> (you)</span> : null}
                            {m.name ? <span className="muted small block">{m.email}</span> : null}
                          </span>
                        </span>
                      </td>
                      <td data-label="Role">
                        {canChange(m) ? (
                          <label className="inline-select">
                            <span className="visually-hidden">Role of {m.email}</span>
                            <select
                              value={m.role}
                              disabled={change.pending}
                              onChange={async (e) => {
                                const role = e.target.value as Role;
                                await changeRole(m, role);
                              }}
                              title={roleHelp[m.role]}
                            >
                              {roleChoices(m).map((r) => (
                                <option key={r} value={r}>
                                  {roleLabel[r]}
                                </option>
                              ))}
                            </select>
                          </label>
                        ) : (
                          <span title={roleHelp[m.role]}>{roleLabel[m.role]}</span>
                        )}
                        {m.role === "OWNER" && owners === 1 ? <span className="muted small block">Last owner</span> : null}
                      </td>
                      <td data-label="Joined">
                        <span title={formatDateTime(m.joinedAt)}>{formatDate(m.joinedAt)}</span>
                      </td>
                      <td className="row-actions">
                        {canRemove(m) ? (
                          <Button
                            size="sm"
                            variant="ghost"
                            className="danger-text"
                            onClick={() => {
                              remove.reset();
                              setRemoving(m);
                            }}
                          >
                            {m.userId === me.id ? "Leave" : "Remove"}
                          </Button>
                        ) : null}
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
        )}
        {change.error ? <ErrorNotice error={change.error} compact /> : null}
        <details className="roles-help">
          <summary>What each role may do</summary>
          <dl className="props">
            {roles.map((r) => (
              <div key={r}>
                <dt>{roleLabel[r]}</dt>
                <dd>{roleHelp[r]}</dd>
              </div>
            ))}
          </dl>
          <p className="muted small">A workspace always keeps at least one owner: the last owner can’t be demoted or removed until someone else is an owner.</p>
        </details>
      </section>

      {ws.canAdmin ? (
        <section aria-labelledby="invite-title" className="section">
          <h2 id="invite-title" className="section-title">
            Invitations
          </h2>
          <InviteForm onInvited={() => void invitations.reload()} />
          {invitations.error && !invitations.data ? (
            <ErrorNotice error={invitations.error} onRetry={() => void invitations.reload()} />
          ) : invitations.data && invitations.data.invitations.length === 0 ? (
            <p className="muted">No invitations yet. Invited people join when they first sign in with the invited address, within 7 days.</p>
          ) : (
            <div className="table-wrap">
              <table className="table responsive-table">
                <caption className="visually-hidden">Invitations, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Address</th>
                    <th scope="col">Role</th>
                    <th scope="col">Status</th>
                    <th scope="col">Sent</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {!invitations.data ? (
                    <SkeletonRows cols={5} rows={1} />
                  ) : (
                    invitations.data.invitations.map((i: Invitation) => (
                      <tr key={i.id} data-invitation={i.email} className={i.status === "REVOKED" || i.status === "EXPIRED" ? "is-revoked" : undefined}>
                        <td data-label="Address" className="strong">
                          {i.email}
                        </td>
                        <td data-label="Role">{roleLabel[i.role]}</td>
                        <td data-label="Status">
                          <Badge tone={invitationTone[i.status]}>{i.status.charAt(0) + i.status.slice(1).toLowerCase()}</Badge>
                          <span className="muted small block">
                            {i.status === "PENDING"
                              ? `expires ${formatRelative(i.expiresAt, now)}`
                              : i.status === "ACCEPTED"
                                ? `joined ${formatDate(i.acceptedAt)}`
                                : i.status === "REVOKED"
                                  ? `revoked ${formatDate(i.revokedAt)}`
                                  : `expired ${formatDate(i.expiresAt)}`}
                          </span>
                        </td>
                        <td data-label="Sent">
                          <span title={formatDateTime(i.createdAt)}>{formatDate(i.createdAt)}</span>
                        </td>
                        <td className="row-actions">
                          {i.status === "PENDING" ? (
                            <Button
                              size="sm"
                              variant="ghost"
                              className="danger-text"
                              pending={revokeInvite.pending}
                              aria-label={`Revoke the invitation of ${i.email}`}
                              onClick={async () => {
                                const done = await revokeInvite.run({ workspace: ws.slug, id: i.id });
                                if (done) {
                                  invitations.set(
                                    (prev) =>
                                      prev && {
                                        invitations: prev.invitations.map((x) =>
                                          x.id === i.id ? { ...x, status: done.revokeInvitation.status, revokedAt: new Date().toISOString() } : x,
                                        ),
                                      },
                                  );
                                  toast(`Invitation of ${i.email} revoked`);
                                }
                              }}
                            >
                              Revoke
                            </Button>
                          ) : null}
                        </td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
          )}
          {revokeInvite.error ? <ErrorNotice error={revokeInvite.error} compact /> : null}
        </section>
      ) : (
        <p className="muted footnote">Owners and admins invite people and see pending invitations.</p>
      )}

      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        onConfirm={() => void doRemove()}
        title={removing?.userId === me.id ? `Leave ${ws.name}?` : `Remove ${removing?.email ?? ""}?`}
        confirmLabel={removing?.userId === me.id ? "Leave workspace" : "Remove member"}
        pending={remove.pending}
        error={remove.error}
      >
        <p>
          {removing?.userId === me.id
            ? "You lose access to its sessions, profiles and keys. An owner or admin can invite you again."
            : "They lose access at once. API keys they created keep working until you revoke them."}
        </p>
      </ConfirmDialog>
    </>
  );
}
