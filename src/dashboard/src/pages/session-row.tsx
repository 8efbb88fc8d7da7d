import { useState } from "react";
import { ReleaseSessionDocument, type SessionsQuery } from "@gql/graphql.ts";
import { copyText } from "../lib/browser.ts";
import { formatDateTime, formatDuration, formatRelative } from "../lib/format.ts";
import { useMutation } from "../lib/hooks.ts";
import { wsPath } from "../lib/me.tsx";
import { Link, navigate } from "../lib/router.tsx";
import { endReasonText, isLive, shortId, StatusBadge } from "../components/session-bits.tsx";
import { Button } from "../components/ui.tsx";
import { ConfirmDialog } from "../components/dialogs.tsx";
import { useToast } from "../components/toasts.tsx";
import { MetadataChips } from "../components/metadata-chips.tsx";
import type { MetadataPair } from "../lib/metadata.ts";

export type ListedSession = SessionsQuery["sessions"]["items"][number];

/** "vs_01J…" for a key (its label as the tooltip), the address for a person. */
export function creatorText(s: ListedSession): { text: string; title?: string } {
  const c = s.createdBy;
  if (!c) return { text: "—" };
  if (c.kind === "api_key") return { text: `${(c.keyPrefix ?? "").slice(0, 11)}…`, title: `API key ${c.keyPrefix} (${c.keyLabel ?? ""})` };
  return { text: c.email ?? "—" };
}

/** The page a running session shows: its title, else its address; a readable host and path under it. */
function PageCell({ s }: { s: ListedSession }) {
  const page = s.currentPage;
  if (!page || !page.url || page.url === "about:blank") return <span className="muted">{isLive(s.status) ? "Blank page" : "—"}</span>;
  let where = page.url;
  try {
    const u = new URL(page.url);
    where = `${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    // not a URL Chromium would show differently: kept as it is
  }
  return (
    <span className="tab-cell" title={page.url}>
      <span className="tab-title">{page.title || where}</span>
      {page.title ? <span className="muted small tab-url">{where}</span> : null}
    </span>
  );
}

/** One row of the sessions list: what it shows, who started it, and what can be done with it from here. */
export function SessionListRow({ s, slug, now, onPick }: { s: ListedSession; slug: string; now: number; onPick: (p: MetadataPair) => void }) {
  const toast = useToast();
  const release = useMutation(ReleaseSessionDocument);
  const [confirming, setConfirming] = useState(false);
  const by = creatorText(s);
  const started = s.startedAt ?? s.createdAt;
  const open = () => navigate(wsPath(slug, `sessions/${s.id}`));
  return (
    <tr
      className="row-link"
      data-session-id={s.id}
      onClick={(e) => {
        if ((e.target as HTMLElement).closest("a, button, dialog")) return;
        open();
      }}
    >
      <td data-label="Session">
        <Link to={wsPath(slug, `sessions/${s.id}`)} className="mono strong" title={s.id}>
          <span className="id-full">{s.id}</span>
          <span className="id-short">{shortId(s.id)}</span>
        </Link>
        <div className="muted small">
          {s.region} · {s.liveViewInteractive ? "interactive" : "view only"}
          {s.liveViewViewers > 0 ? ` · ${s.liveViewViewers} watching` : ""}
        </div>
        <MetadataChips entries={s.metadata} max={4} onPick={onPick} />
      </td>
      <td data-label="Page" className="cell-page">
        <PageCell s={s} />
      </td>
      <td data-label="Status">
        <StatusBadge status={s.status} />
        {s.status === "QUEUED" ? (
          <div className="muted small queue-place" data-queue-position={s.queuePosition ?? ""}>
            {s.queuePosition ? `#${s.queuePosition} in line · ` : ""}waiting {formatDuration(Math.max(0, now - Date.parse(s.createdAt)))}
          </div>
        ) : null}
        {s.endReason ? <div className="muted small end-reason">{endReasonText[s.endReason]}</div> : null}
      </td>
      <td data-label="Started">
        <time dateTime={started} title={formatDateTime(started)}>
          {formatRelative(started, now)}
        </time>
        <div className="muted small tabular">
          {isLive(s.status) ? (
            <span title={`Ends by ${formatDateTime(s.expiresAt)}`}>{formatDuration(Date.parse(s.expiresAt) - now)} left</span>
          ) : s.endedAt ? (
            `ran ${formatDuration(Date.parse(s.endedAt) - Date.parse(started))}`
          ) : null}
        </div>
      </td>
      <td data-label="Created by" className="cell-creator">
        <span className={s.createdBy?.kind === "api_key" ? "mono" : undefined} title={by.title}>
          {by.text}
        </span>
      </td>
      <td data-label="Profile">{s.profileId ? <span title={s.profileId}>{s.profileLabel ?? shortId(s.profileId)}</span> : <span className="muted">—</span>}</td>
      <td data-label="Actions" className="cell-actions">
        <div className="row-actions">
          <Link to={wsPath(slug, `sessions/${s.id}`)} className="btn btn-secondary btn-sm" aria-label={`Open session ${s.id}`}>
            Open
          </Link>
          {s.status === "RUNNING" ? (
            <Button size="sm" variant="ghost" onClick={() => setConfirming(true)} aria-label={`Release session ${s.id}`}>
              Release
            </Button>
          ) : null}
          <Button
            size="sm"
            variant="ghost"
            onClick={() => void copyText(s.id).then((ok) => toast(ok ? "Session id copied" : "Could not copy"))}
            aria-label={`Copy the id of session ${s.id}`}
          >
            Copy id
          </Button>
        </div>
        <ConfirmDialog
          open={confirming}
          onClose={() => setConfirming(false)}
          title="Release this session?"
          confirmLabel="Release"
          pending={release.pending}
          error={release.error}
          onConfirm={async () => {
            if (await release.run({ workspace: slug, id: s.id })) {
              setConfirming(false);
              toast("Session released");
            }
          }}
        >
          <p>
            Its browser closes and connected clients are disconnected. <span className="mono">{shortId(s.id)}</span>
          </p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}
