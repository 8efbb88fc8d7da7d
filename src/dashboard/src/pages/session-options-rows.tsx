import type { ReactNode } from "react";
import { ExtensionsDocument, type SessionOptionsFragment } from "@gql/graphql.ts";
import { useQuery } from "../lib/hooks.ts";
import type { MetadataPair } from "../lib/metadata.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { Link } from "../lib/router.tsx";
import { MetadataChips } from "../components/metadata-chips.tsx";

type Browser = NonNullable<SessionOptionsFragment["browser"]>;

/** "1280 × 800 px, 2× pixel density, mobile". */
export function viewportText(v: NonNullable<Browser["viewport"]>): string {
  return [
    `${v.width} × ${v.height} px`,
    v.deviceScaleFactor && v.deviceScaleFactor !== 1 ? `${v.deviceScaleFactor}× pixel density` : "",
    v.mobile ? "mobile" : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** "46.95° N, 7.45° E, within 10 m" (the browser's default accuracy is 10 m when none was given). */
export function geolocationText(g: NonNullable<Browser["geolocation"]>): string {
  const lat = `${Math.abs(g.latitude)}° ${g.latitude < 0 ? "S" : "N"}`;
  const lon = `${Math.abs(g.longitude)}° ${g.longitude < 0 ? "W" : "E"}`;
  return `${lat}, ${lon}, within ${g.accuracy ?? 10} m`;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * The rows of a session's details that the create shaped: its metadata, its browser settings (as
 * given; the rest is Chromium's default), and the extensions loaded into it. Part of the details' <dl>.
 */
export function SessionOptionRows({ metadata, options }: { metadata: readonly MetadataPair[]; options: SessionOptionsFragment }) {
  const b = options.browser;
  const given = b && (b.viewport || b.userAgent || b.locale || b.timezone || b.geolocation);
  return (
    <>
      <Row label="Metadata">{metadata.length > 0 ? <MetadataChips entries={metadata} /> : "None"}</Row>
      {!given ? <Row label="Browser">Chromium’s defaults</Row> : null}
      {b?.viewport ? <Row label="Viewport">{viewportText(b.viewport)}</Row> : null}
      {b?.userAgent ? (
        <Row label="User agent">
          <span className="mono small ua-text">{b.userAgent}</span>
        </Row>
      ) : null}
      {b?.locale ? <Row label="Locale">{b.locale}</Row> : null}
      {b?.timezone ? <Row label="Time zone">{b.timezone}</Row> : null}
      {b?.geolocation ? <Row label="Location">{geolocationText(b.geolocation)}</Row> : null}
      {options.extensionIds.length > 0 ? (
        <Row label="Extensions">
          <ExtensionNames ids={options.extensionIds} />
        </Row>
      ) : null}
    </>
  );
}

/** Each id with its name while the workspace still has the extension (a deleted one keeps only its id). */
function ExtensionNames({ ids }: { ids: readonly string[] }) {
  const ws = useWorkspace();
  const known = useQuery(ExtensionsDocument, { workspace: ws.slug });
  const byId = new Map((known.data?.extensions ?? []).map((e) => [e.id, e]));
  return (
    <ul className="plain-list">
      {ids.map((id) => {
        const e = byId.get(id);
        return (
          <li key={id} data-extension-id={id}>
            {e ? (
              <Link to={wsPath(ws.slug, "extensions")}>
                {e.name} {e.version}
              </Link>
            ) : null}
            <div className="mono small muted">{id}</div>
          </li>
        );
      })}
    </ul>
  );
}
