import type { ReactNode } from "react";
import { WorkspacesDocument } from "@gql/graphql.ts";
import { formatDate } from "../lib/format.ts";
import { useQuery, useTitle } from "../lib/hooks.ts";
import { roleLabel, useWorkspace } from "../lib/me.tsx";
import { Notice, PageHeader } from "../components/ui.tsx";

/**
 * The workspace's settings for its owners: its name, the limits its sessions run under and how long
 * their data is kept. Only what the API can read is shown as a value; what it cannot read or change
 * yet (renaming, per-workspace limits, retention) names the server setting that decides it, so an
 * owner knows whom to ask and what for.
 */
export function WorkspaceSettingsPage() {
  const ws = useWorkspace();
  const list = useQuery(WorkspacesDocument, {});
  const created = list.data?.workspaces.find((w) => w.id === ws.id)?.createdAt;
  useTitle("Settings");

  if (!ws.isOwner) {
    return (
      <>
        <PageHeader title="Settings" />
        <Notice tone="info" title="For owners">
          <p>Only the workspace’s owners see its settings. Ask an owner on the Members page.</p>
        </Notice>
      </>
    );
  }

  return (
    <>
      <PageHeader title="Settings" description={`What ${ws.name} is called, the limits its sessions run under, and how long their data is kept.`} />
      <Section id="settings-general" title="General">
        <Row label="Name">{ws.name}</Row>
        <Row label="Address">
          <code>{ws.slug}</code>
        </Row>
        <Row label="Created">{created ? formatDate(created) : "…"}</Row>
        <Row label="Your role">{roleLabel[ws.role]}</Row>
      </Section>
      <p className="muted small">Renaming a workspace has no API yet: the name and address stay as they were created.</p>
      <Section id="settings-limits" title="Limits">
        <Row label="Live sessions at once">
          The deployment’s cap, <code>VESSEL_WORKSPACE_MAX_SESSIONS</code>, unless the operator gave this workspace its own (<code>max_sessions</code>). Over
          it, a new session is refused with 429 <code>workspace-session-limit</code>.
        </Row>
        <Row label="Longest session">
          <code>timeout_seconds</code> of each session, at most the deployment’s longest (30 minutes unless the operator changed it).
        </Row>
        <Row label="API requests">Per key and minute, the deployment’s rate limit unless the operator gave this workspace its own; over it, 429.</Row>
      </Section>
      <Section id="settings-retention" title="Retention">
        <Row label="Session logs">
          Kept <code>VESSEL_LOGS_RETENTION_DAYS</code> days after the session starts (7 unless the operator changed it), then deleted.
        </Row>
        <Row label="Recordings">
          Kept <code>VESSEL_RECORDING_RETENTION_DAYS</code> days after the session starts (7 unless the operator changed it), then deleted.
        </Row>
        <Row label="Audit log">Kept with the workspace.</Row>
      </Section>
      <p className="muted small">These limits are the server’s settings: the API does not read or change them per workspace yet.</p>
    </>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card settings-card" aria-labelledby={id}>
      <h2 id={id} className="card-title">
        {title}
      </h2>
      <dl className="props">{children}</dl>
    </section>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
