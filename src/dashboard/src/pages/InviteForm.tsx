import { useState, type FormEvent } from "react";
import { CreateInvitationDocument, type Role } from "@gql/graphql.ts";
import { useMutation } from "../lib/hooks.ts";
import { roleLabel, useWorkspace } from "../lib/me.tsx";
import { Button, CopyButton, ErrorNotice, Field, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";

export const roles: Role[] = ["OWNER", "ADMIN", "MEMBER"];

export function InviteForm({ onInvited }: { onInvited: () => void }) {
  const ws = useWorkspace();
  const toast = useToast();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("MEMBER");
  const invite = useMutation(CreateInvitationDocument);
  // On a server without mail: the link to pass on, shown until the next invitation (never again after).
  const [handed, setHanded] = useState<{ email: string; link: string } | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const done = await invite.run({ workspace: ws.slug, email: email.trim(), role });
    if (done) {
      const { email: invited, signInLink } = done.createInvitation;
      setHanded(signInLink ? { email: invited, link: signInLink } : null);
      toast(signInLink ? `Invited ${invited}: pass on the link below` : `Invitation sent to ${invited}`);
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
      {handed ? (
        <div className="notice notice-info notice-plain invite-link" role="status">
          <p>
            This server sends no mail, so nothing was sent to <strong>{handed.email}</strong>. Pass them this one-time sign-in link yourself (it works once,
            within 24 hours, and is shown only now):
          </p>
          <p className="invite-link-row">
            <code className="mono">{handed.link}</code> <CopyButton text={handed.link} label="Copy link" />
          </p>
        </div>
      ) : null}
      <p className="muted small invite-note">
        They get a mail (or, on a server without mail, you get a link to pass on), and join when they first sign in with this address within 7 days.
      </p>
    </form>
  );
}
