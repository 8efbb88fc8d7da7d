import { useEffect, useState } from "react";
import { UpdateWorkspaceSettingsDocument, WorkspaceSettingsDocument, type WorkspaceLimitsFieldsFragment } from "@gql/graphql.ts";
import { useMutation, useQuery } from "../lib/hooks.ts";
import { useMe, useWorkspace } from "../lib/me.tsx";
import { Button, ErrorNotice, Field } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";

type LimitKey = Exclude<keyof WorkspaceLimitsFieldsFragment, "__typename">;

/** The hard bounds (the server's, services/workspaces/workspace-settings-input.ts): what an organization admin may set. */
const hard: Record<LimitKey, { min: number; max: number }> = {
  maxSessions: { min: 1, max: 10_000 },
  maxSessionSeconds: { min: 60, max: 86_400 },
  queueWeight: { min: 1, max: 1_000 },
  rateLimitPerMinute: { min: 1, max: 100_000 },
};

const limits: Array<{ key: LimitKey; id: string; label: string; unit: string }> = [
  { key: "maxSessions", id: "limit-max-sessions", label: "Live sessions at once", unit: "sessions" },
  { key: "maxSessionSeconds", id: "limit-max-session-seconds", label: "Longest session", unit: "seconds" },
  { key: "rateLimitPerMinute", id: "limit-rate", label: "API requests per minute, per key", unit: "requests" },
  { key: "queueWeight", id: "limit-queue-weight", label: "Share of the start queue", unit: "starts per turn" },
];

const asText = (v: number | null | undefined) => (v === null || v === undefined ? "" : String(v));
/** Empty → null (the deployment's default); anything else as typed, for the server to judge and name. */
const asValue = (text: string): number | null => (text.trim() === "" ? null : Number(text));

/**
 * The workspace's name and limits, editable by its owners within what the deployment grants (the
 * bounds are shown; above one the server answers 403 naming it) and by organization admins within
 * the hard bounds. An empty limit is the deployment's default. New sessions take a change at once.
 */
export function WorkspaceLimitsForm() {
  const ws = useWorkspace();
  const { me, reloadMe } = useMe();
  const toast = useToast();
  const settings = useQuery(WorkspaceSettingsDocument, { workspace: ws.slug });
  const save = useMutation(UpdateWorkspaceSettingsDocument);
  const current = settings.data?.workspaceSettings;
  const [name, setName] = useState(ws.name);
  const [values, setValues] = useState<Record<LimitKey, string>>({ maxSessions: "", maxSessionSeconds: "", queueWeight: "", rateLimitPerMinute: "" });
  useEffect(() => {
    if (!current) return;
    setName(current.name);
    setValues({
      maxSessions: asText(current.limits.maxSessions),
      maxSessionSeconds: asText(current.limits.maxSessionSeconds),
      queueWeight: current.limits.queueWeight === 1 ? "" : asText(current.limits.queueWeight),
      rateLimitPerMinute: asText(current.limits.rateLimitPerMinute),
    });
  }, [current]);

  // A value already set above the bound (by an organization admin) may be sent back unchanged: the server accepts it.
  const bound = (key: LimitKey): number => (me.organizationAdmin ? hard[key].max : (current?.ownerBounds[key] ?? hard[key].max));
  const hint = (key: LimitKey): string => {
    const now = current ? current.effective[key] : undefined;
    const applies = now === undefined ? "…" : now === null ? "no cap" : `${now}`;
    const who = me.organizationAdmin ? "organization admins" : "owners";
    return `Now ${applies}. Empty: the deployment’s default. ${hard[key].min}–${bound(key)} for ${who}.`;
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const done = await save.run({
      workspace: ws.slug,
      name,
      maxSessions: asValue(values.maxSessions),
      maxSessionSeconds: asValue(values.maxSessionSeconds),
      queueWeight: asValue(values.queueWeight),
      rateLimitPerMinute: asValue(values.rateLimitPerMinute),
    });
    if (done) {
      settings.set(() => ({ workspaceSettings: done.updateWorkspaceSettings }));
      toast("Settings saved: new sessions take them at once");
      if (done.updateWorkspaceSettings.name !== ws.name) void reloadMe();
    }
  };

  return (
    <section aria-labelledby="settings-limits" className="card settings-card">
      <h2 id="settings-limits" className="card-title">
        Name and limits
      </h2>
      {settings.error && !settings.data ? <ErrorNotice error={settings.error} onRetry={() => void settings.reload()} /> : null}
      {save.error ? <ErrorNotice error={save.error} compact /> : null}
      <form onSubmit={(e) => void submit(e)} className="form-grid">
        <Field id="settings-name" label="Name" hint="1–100 characters. The address stays as it was created.">
          <input id="settings-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required aria-describedby="settings-name-hint" />
        </Field>
        {limits.map(({ key, id, label, unit }) => (
          <Field key={key} id={id} label={`${label} (${unit})`} hint={hint(key)}>
            <input
              id={id}
              type="number"
              inputMode="numeric"
              min={hard[key].min}
              max={Math.max(bound(key), current?.limits[key] ?? 0)}
              step={1}
              value={values[key]}
              onChange={(e) => setValues((v) => ({ ...v, [key]: e.target.value }))}
              aria-describedby={`${id}-hint`}
            />
          </Field>
        ))}
        <div className="span-2">
          <Button variant="primary" type="submit" pending={save.pending}>
            Save settings
          </Button>
        </div>
      </form>
    </section>
  );
}
