import type { ReactNode } from "react";
import { WorkspacesDocument } from "@gql/graphql.ts";
import { formatDate } from "../lib/format.ts";
import { useQuery, useTitle } from "../lib/hooks.ts";
import { roleLabel, useWorkspace } from "../lib/me.tsx";
import { Notice, PageHeader } from "../components/ui.tsx";
import { NetworkPolicySection } from "./network-policy-section.tsx";
import { WorkspaceLimitsForm } from "./workspace-limits-form.tsx";

/**
 * The workspace's settings for its owners: its name and the limits its sessions run under (editable,
 * within what the deployment grants), its network rules, and how long their data is kept (the
 * server's setting, named so an owner knows whom to ask).
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
      <PageHeader
        title="Settings"
        description={`What ${ws.name} is called, the limits its sessions run under, its network rules and how long their data is kept.`}
      />
      <Section id="settings-general" title="General">
        <Row label="Address">
          <code>{ws.slug}</code>
        </Row>
        <Row label="Created">{created ? formatDate(created) : "…"}</Row>
        <Row label="Your role">{roleLabel[ws.role]}</Row>
      </Section>
      <WorkspaceLimitsForm />
      <p className="muted small">
        Over the live-session limit a new session is refused with 429 <code>workspace-session-limit</code>; a longer <code>timeout_seconds</code> than the
        longest session is refused with 400. Running sessions keep the limits they started with.
      </p>
      <NetworkPolicySection />
      <Section id="settings-retention" title="Retention">
        <Row label="Session logs">
          Kept <code>VESSEL_LOGS_RETENTION_DAYS</code> days after the session starts (7 unless the operator changed it), then deleted.
        </Row>
        <Row label="Recordings">
          Kept <code>VESSEL_RECORDING_RETENTION_DAYS</code> days after the session starts (7 unless the operator changed it), then deleted.
        </Row>
        <Row label="Audit log">Kept with the workspace.</Row>
      </Section>
      <p className="muted small">Retention is the server’s setting: the API does not change it per workspace.</p>
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
