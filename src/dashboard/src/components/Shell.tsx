import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useFocusTrap } from "../lib/focus-trap.ts";
import { useMe, roleLabel, wsPath, type CurrentWorkspace } from "../lib/me.tsx";
import { Link, navigate, useLocation } from "../lib/router.tsx";
import { connectionState, onConnectionState } from "../lib/live.ts";
import {
  AuditIcon,
  CheckIcon,
  ChevronIcon,
  CloseIcon,
  KeyIcon,
  Logo,
  MembersIcon,
  MenuIcon,
  PlusIcon,
  ProfilesIcon,
  PuzzleIcon,
  SessionsIcon,
  SettingsIcon,
  SignOutIcon,
  WebhookIcon,
} from "./icons.tsx";
import { DisabledWebhooksNotice } from "./webhook-notice.tsx";

const sections = [
  { path: "sessions", label: "Sessions", icon: SessionsIcon },
  { path: "profiles", label: "Profiles", icon: ProfilesIcon },
  { path: "extensions", label: "Extensions", icon: PuzzleIcon },
  { path: "credentials", label: "Credentials", icon: KeyIcon },
  { path: "api-keys", label: "API keys", icon: KeyIcon },
  { path: "webhooks", label: "Webhooks", icon: WebhookIcon, admin: true },
  { path: "members", label: "Members", icon: MembersIcon },
  { path: "audit-log", label: "Audit log", icon: AuditIcon, admin: true },
  { path: "settings", label: "Settings", icon: SettingsIcon, owner: true },
] as const;

/** The signed-in frame: sidebar (a drawer on phones) with the workspace switcher, navigation and account. */
export function Shell({ workspace, children }: { workspace: CurrentWorkspace | null; children: ReactNode }) {
  const { me, signOut } = useMe();
  const { path } = useLocation();
  const [drawer, setDrawer] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);

  // A new page: close the drawer, start at the top, and move focus to its heading for screen readers.
  const first = useRef(true);
  useEffect(() => {
    setDrawer(false);
    window.scrollTo(0, 0);
    if (first.current) {
      first.current = false;
      return;
    }
    requestAnimationFrame(() => document.querySelector<HTMLElement>("main h1")?.focus({ preventScroll: true }));
  }, [path]);

  const sidebar = useRef<HTMLElement>(null);
  const closeDrawer = useCallback(() => {
    setDrawer(false);
    // Once the page behind is no longer inert.
    requestAnimationFrame(() => menuButton.current?.focus());
  }, []);
  useFocusTrap(sidebar, drawer, closeDrawer);

  return (
    <div className={`app${drawer ? " drawer-open" : ""}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar" inert={drawer}>
        <button
          ref={menuButton}
          type="button"
          className="icon-btn"
          aria-label="Open navigation"
          aria-expanded={drawer}
          aria-controls="sidebar"
          onClick={() => setDrawer(true)}
        >
          <MenuIcon />
        </button>
        <Link to="/dashboard/" className="topbar-brand">
          <Logo className="brand-logo" />
          <span>{workspace?.name ?? "Vessel"}</span>
        </Link>
        <LiveDot />
      </header>
      <div className="drawer-backdrop" aria-hidden="true" onClick={() => setDrawer(false)} />
      <aside ref={sidebar} id="sidebar" className="sidebar" aria-label="Workspace navigation" role={drawer ? "dialog" : undefined}>
        <div className="sidebar-head">
          <Link to="/dashboard/" className="brand">
            <Logo className="brand-logo" />
            <span>Vessel</span>
          </Link>
          <button type="button" className="icon-btn drawer-close" aria-label="Close navigation" onClick={closeDrawer}>
            <CloseIcon />
          </button>
        </div>
        <WorkspaceSwitcher current={workspace} />
        {workspace ? (
          <nav className="nav" aria-label="Sections">
            <ul>
              {sections
                .filter((s) => (!("admin" in s) || workspace.canAdmin) && (!("owner" in s) || workspace.isOwner))
                .map((s) => {
                  const to = wsPath(workspace.slug, s.path);
                  const active = path === to || path.startsWith(`${to}/`);
                  return (
                    <li key={s.path}>
                      <Link to={to} className={`nav-link${active ? " active" : ""}`} aria-current={active ? "page" : undefined}>
                        <s.icon />
                        <span>{s.label}</span>
                      </Link>
                    </li>
                  );
                })}
            </ul>
          </nav>
        ) : (
          <div className="nav-spacer" />
        )}
        <div className="sidebar-foot">
          <div className="account">
            <span className="avatar" aria-hidden="true">
              {(me.name ?? me.email).slice(0, 1).toUpperCase()}
            </span>
            <span className="account-text">
              {me.name ? <span className="account-name">{me.name}</span> : null}
              <span className="account-email" title={me.email}>
                {me.email}
              </span>
            </span>
          </div>
          <button type="button" className="btn btn-ghost btn-sm signout" onClick={() => void signOut()}>
            <SignOutIcon />
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1} inert={drawer}>
        <div className="content">
          {workspace ? <DisabledWebhooksNotice workspace={workspace} /> : null}
          {children}
        </div>
      </main>
    </div>
  );
}

/** Whether live updates flow (the graphql-ws connection). */
export function LiveDot({ withLabel }: { withLabel?: boolean }) {
  const [state, setState] = useState(connectionState);
  useEffect(() => onConnectionState(setState), []);
  if (state === "idle") return null;
  const label = state === "live" ? "Live" : state === "connecting" ? "Connecting…" : "Reconnecting…";
  return (
    <span className={`live live-${state}`} title={state === "live" ? "Updates arrive as they happen" : "Live updates are reconnecting"}>
      <span className="live-dot" aria-hidden="true" />
      {withLabel ? <span>{label}</span> : <span className="visually-hidden">{label}</span>}
    </span>
  );
}

function WorkspaceSwitcher({ current }: { current: CurrentWorkspace | null }) {
  const { me } = useMe();
  const [open, setOpen] = useState(false);
  const listId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        setOpen(false);
        button.current?.focus();
      }
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        const items = [...(root.current?.querySelectorAll<HTMLElement>(".switcher-item") ?? [])];
        if (items.length === 0) return;
        e.preventDefault();
        const at = items.indexOf(document.activeElement as HTMLElement);
        const next = e.key === "ArrowDown" ? (at + 1) % items.length : (at - 1 + items.length) % items.length;
        items[next]?.focus();
      }
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    requestAnimationFrame(() => root.current?.querySelector<HTMLElement>(".switcher-item")?.focus());
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  const go = (to: string) => {
    setOpen(false);
    navigate(to);
  };

  return (
    <div className="switcher" ref={root}>
      <button
        ref={button}
        type="button"
        className="switcher-button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="switcher-mark" aria-hidden="true">
          {(current?.name ?? "?").slice(0, 1).toUpperCase()}
        </span>
        <span className="switcher-text">
          <span className="switcher-label">Workspace</span>
          <span className="switcher-name">{current?.name ?? "No workspace"}</span>
        </span>
        <ChevronIcon className="switcher-chevron" />
      </button>
      {open ? (
        <div className="switcher-menu" id={listId}>
          {me.workspaces.length > 0 ? (
            <ul aria-label="Your workspaces">
              {me.workspaces.map((w) => (
                <li key={w.id}>
                  <a
                    href={wsPath(w.slug)}
                    className="switcher-item"
                    aria-current={w.slug === current?.slug ? "true" : undefined}
                    onClick={(e) => {
                      e.preventDefault();
                      go(wsPath(w.slug));
                    }}
                  >
                    <span className="switcher-mark small" aria-hidden="true">
                      {w.name.slice(0, 1).toUpperCase()}
                    </span>
                    <span className="switcher-item-text">
                      <span>{w.name}</span>
                      <span className="muted small">
                        {w.slug} · {roleLabel[w.role]}
                      </span>
                    </span>
                    {w.slug === current?.slug ? <CheckIcon className="switcher-check" /> : null}
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <p className="switcher-empty">You don’t belong to a workspace yet.</p>
          )}
          {me.organizationAdmin ? (
            <a
              href="/dashboard/new-workspace"
              className="switcher-item switcher-create"
              onClick={(e) => {
                e.preventDefault();
                go("/dashboard/new-workspace");
              }}
            >
              <PlusIcon />
              <span>Create workspace</span>
            </a>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
