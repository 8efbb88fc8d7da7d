import { useEffect, useState } from "react";
import { NetworkPolicyDocument, SetNetworkPolicyDocument } from "@gql/graphql.ts";
import { formatDateTime } from "../lib/format.ts";
import { useMutation, useQuery } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Button, ErrorNotice, Field } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";

/** One rule a line; blank lines and surrounding spaces dropped. */
const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * The workspace's network rules (a section of its settings): what its sessions' browsers may reach,
 * within what the server allows. Every member reads them; owners and admins change them. A bad rule
 * comes back named by the server (422 invalid-network-rule) and nothing is changed.
 */
export function NetworkPolicySection() {
  const ws = useWorkspace();
  const toast = useToast();
  const policy = useQuery(NetworkPolicyDocument, { workspace: ws.slug });
  const save = useMutation(SetNetworkPolicyDocument);
  const [allow, setAllow] = useState("");
  const [deny, setDeny] = useState("");
  const current = policy.data?.networkPolicy;
  useEffect(() => {
    if (!current) return;
    setAllow(current.allow.join("\n"));
    setDeny(current.deny.join("\n"));
  }, [current]);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const done = await save.run({ workspace: ws.slug, allow: lines(allow), deny: lines(deny) });
    if (done) {
      policy.set(() => ({ networkPolicy: done.setNetworkPolicy }));
      toast("Network rules saved: running sessions take them within seconds");
    }
  };

  return (
    <section aria-labelledby="network-policy-title" className="settings-section">
      <h2 id="network-policy-title">Network rules</h2>
      <p>
        What this workspace’s browsers may reach, within what the server allows (private and loopback addresses stay refused unless the server allows them). One
        rule a line: a host (<code>example.com</code>), its subdomains (<code>*.example.com</code>), an address or CIDR (<code>10.1.0.0/16</code>), each with an
        optional <code>:port</code>. Deny beats allow; no allow rules means whatever the server allows. A session may narrow them further when it is created.
      </p>
      {policy.error && !policy.data ? <ErrorNotice error={policy.error} onRetry={() => void policy.reload()} /> : null}
      {save.error ? <ErrorNotice error={save.error} compact /> : null}
      <form onSubmit={(e) => void submit(e)}>
        <Field id="network-allow" label="Allow" hint="Empty: every destination the server allows.">
          <textarea
            id="network-allow"
            rows={5}
            value={allow}
            onChange={(e) => setAllow(e.target.value)}
            readOnly={!ws.canAdmin}
            spellCheck={false}
            aria-describedby="network-allow-hint"
          />
        </Field>
        <Field id="network-deny" label="Deny" hint="Refused even when an allow rule matches; a CIDR is checked against the addresses a name resolves to.">
          <textarea
            id="network-deny"
            rows={5}
            value={deny}
            onChange={(e) => setDeny(e.target.value)}
            readOnly={!ws.canAdmin}
            spellCheck={false}
            aria-describedby="network-deny-hint"
          />
        </Field>
        {current?.updatedAt ? <p className="field-hint">Last changed {formatDateTime(current.updatedAt)}.</p> : null}
        {ws.canAdmin ? (
          <Button variant="primary" type="submit" pending={save.pending}>
            Save network rules
          </Button>
        ) : (
          <p className="field-hint">Only owners and admins change the network rules.</p>
        )}
      </form>
    </section>
  );
}
