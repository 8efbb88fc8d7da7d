import { useState, type FormEvent } from "react";
import { ClaimWorkspaceDocument, CreateWorkspaceDocument } from "@gql/graphql.ts";
import { slugify } from "../lib/format.ts";
import { useMutation, useTitle } from "../lib/hooks.ts";
import { useMe, wsPath } from "../lib/me.tsx";
import { Link, navigate } from "../lib/router.tsx";
import { Button, Denied, EmptyState, ErrorNotice, Field, PageHeader, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { BoxIcon, PlusIcon } from "../components/icons.tsx";

/**
 * Claims an ownerless workspace (an organization admin becomes its owner), then opens it. Shown
 * wherever such a workspace would otherwise be a dead end: the welcome page, "Workspace not found".
 */
export function ClaimWorkspace({ slug, name }: { slug: string; name: string }) {
  const { reloadMe } = useMe();
  const toast = useToast();
  const claim = useMutation(ClaimWorkspaceDocument);
  const run = async () => {
    const done = await claim.run({ slug });
    if (!done) return;
    await reloadMe();
    toast(`You own ${done.claimWorkspace.name} now`);
    navigate(wsPath(done.claimWorkspace.slug));
  };
  return (
    <div className="claim-row">
      <p>
        <strong>{name}</strong> (<code>{slug}</code>) has no owner: nobody can see its sessions in the dashboard yet.
      </p>
      <Button variant="primary" pending={claim.pending} onClick={() => void run()}>
        Claim {name}
      </Button>
      {claim.error ? <ErrorNotice error={claim.error} compact /> : null}
    </div>
  );
}

export function NoWorkspacePage() {
  const { me } = useMe();
  useTitle("Welcome");
  return (
    <>
      <PageHeader title={`Welcome${me.name ? `, ${me.name}` : ""}`} description="Vessel runs remote Chromium sessions for your team." />
      {me.claimableWorkspaces.length > 0 ? (
        <section className="card claim-card" aria-label="Workspaces without an owner">
          {me.claimableWorkspaces.map((w) => (
            <ClaimWorkspace key={w.slug} slug={w.slug} name={w.name} />
          ))}
        </section>
      ) : null}
      {me.organizationAdmin ? (
        <EmptyState
          icon={<BoxIcon />}
          title="Create your first workspace"
          action={
            <Link to="/dashboard/new-workspace" className="btn btn-primary">
              <PlusIcon /> Create workspace
            </Link>
          }
        >
          <p>A workspace holds sessions, saved profiles, API keys and members. You will be its owner.</p>
        </EmptyState>
      ) : (
        <EmptyState icon={<BoxIcon />} title="You’re not in a workspace yet">
          <p>Ask an owner or an admin of your team’s workspace to invite {me.email}. Their invitation is accepted when you next sign in.</p>
        </EmptyState>
      )}
    </>
  );
}

export function NewWorkspacePage() {
  const { me, reloadMe } = useMe();
  const toast = useToast();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugTouched, setSlugTouched] = useState(false);
  const create = useMutation(CreateWorkspaceDocument);
  useTitle("New workspace");
  if (!me.organizationAdmin) {
    return (
      <>
        <PageHeader title="New workspace" />
        <Denied detail="Only organization admins create workspaces. Ask one to create it, and to invite you." />
      </>
    );
  }
  const effectiveSlug = slugTouched ? slug : slugify(name);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const done = await create.run({ name: name.trim(), slug: effectiveSlug });
    if (!done) return;
    await reloadMe();
    toast(`Workspace ${done.createWorkspace.name} created`);
    navigate(wsPath(done.createWorkspace.slug));
  };
  return (
    <>
      <PageHeader title="New workspace" description="Sessions, profiles, API keys and members live in a workspace. You will be its owner." />
      <form className="card form-card" onSubmit={submit} noValidate>
        <Field id="ws-name" label="Name" error={fieldError(create.error, "name")}>
          <input id="ws-name" required autoFocus value={name} onChange={(e) => setName(e.target.value)} placeholder="Acme automation" maxLength={100} />
        </Field>
        <Field
          id="ws-slug"
          label="Slug"
          hint={<>Used in addresses: /dashboard/w/{effectiveSlug || "your-slug"}. Lower-case letters, digits and dashes.</>}
          error={fieldError(create.error, "slug")}
        >
          <input
            id="ws-slug"
            required
            value={effectiveSlug}
            onChange={(e) => {
              setSlugTouched(true);
              setSlug(e.target.value.toLowerCase());
            }}
            placeholder="acme"
            maxLength={40}
            spellCheck={false}
            aria-describedby="ws-slug-hint"
          />
        </Field>
        {create.error ? <ErrorNotice error={create.error} compact /> : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" pending={create.pending} disabled={!name.trim() || !effectiveSlug}>
            Create workspace
          </Button>
        </div>
      </form>
    </>
  );
}

export function UnknownWorkspacePage({ slug }: { slug: string }) {
  const { me } = useMe();
  useTitle("Workspace not found");
  const claimable = me.claimableWorkspaces.find((w) => w.slug === slug);
  if (claimable) {
    return (
      <EmptyState icon={<BoxIcon />} page title={`${claimable.name} has no owner`}>
        <p>As an organization admin you may take ownership; it is recorded in the workspace's audit log.</p>
        <ClaimWorkspace slug={claimable.slug} name={claimable.name} />
      </EmptyState>
    );
  }
  return (
    <EmptyState
      icon={<BoxIcon />}
      page
      title="Workspace not found"
      action={
        <Link to="/dashboard/" className="btn btn-secondary">
          Go to your workspaces
        </Link>
      }
    >
      <p>
        There is no workspace <code>{slug}</code>, or you are not a member of it. Ask one of its owners to invite you.
      </p>
    </EmptyState>
  );
}

export function NotFoundPage() {
  useTitle("Not found");
  return (
    <EmptyState
      page
      title="Page not found"
      action={
        <Link to="/dashboard/" className="btn btn-secondary">
          Back to the dashboard
        </Link>
      }
    >
      <p>The address may be mistyped, or the page has moved.</p>
    </EmptyState>
  );
}
