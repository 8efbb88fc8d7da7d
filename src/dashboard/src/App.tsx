import { type ReactNode, useCallback, useEffect, useMemo } from "react";
import { MeDocument, SignOutDocument } from "@gql/graphql.ts";
import { forgetSignIn, onSignedOut, request, scheduleRefresh } from "./lib/api.ts";
import { clearCache, useQuery } from "./lib/hooks.ts";
import { MeContext, WorkspaceContext, currentWorkspace, lastWorkspace, rememberWorkspace, useMe, wsPath, type SignedInContext } from "./lib/me.tsx";
import { match, navigate, useLocation } from "./lib/router.tsx";
import { Shell } from "./components/Shell.tsx";
import { Button, ErrorNotice, Loading } from "./components/ui.tsx";
import { Toaster } from "./components/toasts.tsx";
import { Logo } from "./components/icons.tsx";
import { SignInPage } from "./pages/SignIn.tsx";
import { SessionsPage } from "./pages/Sessions.tsx";
import { SessionPage } from "./pages/Session.tsx";
import { ProfilesPage } from "./pages/Profiles.tsx";
import { CredentialsPage } from "./pages/Credentials.tsx";
import { ExtensionsPage } from "./pages/Extensions.tsx";
import { ApiKeysPage } from "./pages/ApiKeys.tsx";
import { WebhooksPage } from "./pages/Webhooks.tsx";
import { MembersPage } from "./pages/Members.tsx";
import { WorkspaceSettingsPage } from "./pages/WorkspaceSettings.tsx";
import { AuditLogPage } from "./pages/AuditLog.tsx";
import { NewWorkspacePage, NoWorkspacePage, NotFoundPage, UnknownWorkspacePage } from "./pages/Workspaces.tsx";

export function App() {
  const { path } = useLocation();
  return <Toaster>{match("/sign-in", path) ? <SignInPage /> : <SignedIn />}</Toaster>;
}

/** To the sign-in page, coming back here afterwards; "signed out" is said only when a sign-in ended. */
function toSignIn(wasSignedIn: boolean) {
  const here = location.pathname + location.search;
  if (here.startsWith("/dashboard/sign-in")) return;
  const params = new URLSearchParams();
  if (wasSignedIn) params.set("ended", "1");
  if (here !== "/dashboard/" && here !== "/dashboard") params.set("next", here);
  const query = params.toString();
  navigate(`/dashboard/sign-in${query ? `?${query}` : ""}`, { replace: true });
}

function SignedIn() {
  const me = useQuery(MeDocument, {});
  const { path } = useLocation();

  // Any call that finds the sign-in gone (the refresh refused) brings the sign-in page.
  useEffect(() => onSignedOut(toSignIn), []);
  useEffect(() => scheduleRefresh(), []);

  const signOut = useCallback(async () => {
    try {
      await request(SignOutDocument, {}, { signedIn: false });
    } finally {
      forgetSignIn();
      clearCache();
      navigate("/dashboard/sign-in", { replace: true });
    }
  }, []);

  const ctx = useMemo<SignedInContext | null>(() => (me.data ? { me: me.data.me, reloadMe: me.reload, signOut } : null), [me.data, me.reload, signOut]);

  if (!ctx) {
    if (me.error && me.error.code !== "UNAUTHENTICATED") {
      return (
        <div className="auth-page">
          <main className="auth-card" id="main">
            <div className="auth-brand">
              <Logo className="brand-logo" />
              <span>Vessel</span>
            </div>
            <ErrorNotice error={me.error} compact />
            <Button variant="primary" onClick={() => void me.reload()}>
              Try again
            </Button>
          </main>
        </div>
      );
    }
    return (
      <div className="boot">
        <Loading label="Opening your dashboard…" />
      </div>
    );
  }

  return (
    <MeContext.Provider value={ctx}>
      <Routes path={path} />
    </MeContext.Provider>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function Routes({ path }: { path: string }) {
  const { me } = useMe();

  if (match("", path) || match("/w", path)) {
    const remembered = lastWorkspace();
    const target = me.workspaces.find((w) => w.slug === remembered) ?? me.workspaces[0];
    if (target) return <Redirect to={wsPath(target.slug)} />;
    return (
      <Shell workspace={null}>
        <NoWorkspacePage />
      </Shell>
    );
  }
  if (match("/new-workspace", path)) {
    return (
      <Shell workspace={null}>
        <NewWorkspacePage />
      </Shell>
    );
  }

  const inWorkspace = match("/w/:slug", path) ?? match("/w/:slug/:section", path) ?? match("/w/:slug/:section/:id", path);
  if (!inWorkspace) {
    return (
      <Shell workspace={null}>
        <NotFoundPage />
      </Shell>
    );
  }
  const ref = me.workspaces.find((w) => w.slug === inWorkspace.slug);
  if (!ref) {
    return (
      <Shell workspace={null}>
        <UnknownWorkspacePage slug={inWorkspace.slug!} />
      </Shell>
    );
  }
  const workspace = currentWorkspace(ref);
  rememberWorkspace(workspace.slug);
  const section = inWorkspace.section ?? "sessions";
  const id = inWorkspace.id;
  let page: ReactNode;
  if (!inWorkspace.section) return <Redirect to={wsPath(workspace.slug)} />;
  else if (section === "sessions" && id) page = <SessionPage key={id} id={id} />;
  else if (section === "sessions") page = <SessionsPage />;
  else if (section === "profiles" && !id) page = <ProfilesPage />;
  else if (section === "extensions" && !id) page = <ExtensionsPage />;
  else if (section === "credentials" && !id) page = <CredentialsPage />;
  else if (section === "api-keys" && !id) page = <ApiKeysPage />;
  else if (section === "webhooks" && !id) page = <WebhooksPage />;
  else if (section === "members" && !id) page = <MembersPage />;
  else if (section === "audit-log" && !id) page = <AuditLogPage />;
  else if (section === "settings" && !id) page = <WorkspaceSettingsPage />;
  else page = <NotFoundPage />;

  return (
    <WorkspaceContext.Provider value={workspace}>
      <Shell workspace={workspace}>
        <div key={workspace.slug} className="page">
          {page}
        </div>
      </Shell>
    </WorkspaceContext.Provider>
  );
}
