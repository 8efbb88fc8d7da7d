import { useState, type FormEvent } from "react";
import { CreateInvitationDocument, type Role } from "@gql/graphql.ts";
import { useMutation } from "../lib/hooks.ts";
import { roleLabel, useWorkspace } from "../lib/me.tsx";
import { Button, ErrorNotice, Field, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";

export const roles: Role[] = ["OWNER", "ADMIN", "MEMBER"];

export function InviteForm({ onInvited }: { onInvited: () => void }) {
  const ws = useWorkspace();
  const toast = useToast();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("MEMBER");
  const invite = useMutation(CreateInvitationDocument);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const done = await invite.run({ workspace: ws.slug, email: email.trim(), role });
    if (done) {
      toast(`Invitation sent to ${done.createInvitation.email}`);
      setEmail("");
      onInvited();
    }
  };
  return (
    <form className="invite-form card" onSubmit={submit} noValidate aria-label="Invite someone">
      <Field id="inv-email" label="Email address" error={fieldError(invite.error, "email")}>
        <input id="inv-email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="colleague@company.com" />
      </Field>
      <Field id="inv-role" label="Role">
        <select id="inv-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {roles
            .filter((r) => ws.isOwner || r !== "OWNER")
            .map((r) => (
              <option key={r} value={r}>
                {roleLabel[r]}
              </option>
            ))}
        </select>
      </Field>
      <div className="invite-submit">
        <Button type="submit" variant="primary" pending={invite.pending} disabled={!email.trim()}>
          Send invitation
        </Button>
      </div>
      {invite.error && !fieldError(invite.error, "email") ? (
        <div className="invite-error">
          <ErrorNotice error={invite.error} compact />
        </div>
      ) : null}
      <p className="muted small invite-note">They get a mail, and join when they first sign in with this address within 7 days.</p>
    </form>
  );
}
