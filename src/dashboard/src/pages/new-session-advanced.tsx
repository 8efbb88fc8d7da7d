import { useEffect, useId, useMemo, useState } from "react";
import { ExtensionsDocument } from "@gql/graphql.ts";
import type { ApiError } from "../lib/api.ts";
import { fieldMessage } from "../lib/field-messages.ts";
import { formatBytes } from "../lib/format.ts";
import { useQuery } from "../lib/hooks.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { Link } from "../lib/router.tsx";
import { Field, Notice } from "../components/ui.tsx";
import { ChevronIcon } from "../components/icons.tsx";
import { MetadataRows } from "./metadata-rows.tsx";
import { isAdvancedField, localeSuggestions, rowField, timeZones, type AdvancedState } from "./new-session-options.ts";

/**
 * The dialog's "Advanced" disclosure: metadata, browser settings and extensions. Closed at first;
 * it opens by itself when one of its fields has a problem, so no message is hidden. `problems` are
 * the form's own (shown after a first submit), `error` the server's; each appears next to its field.
 */
export function AdvancedOptions({
  state,
  onChange,
  problems,
  error,
  count,
}: {
  state: AdvancedState;
  onChange: (patch: Partial<AdvancedState>) => void;
  problems: Map<string, string>;
  error: ApiError | undefined;
  count: number;
}) {
  const bodyId = useId();
  const [open, setOpen] = useState(false);
  const zones = useMemo(timeZones, []);
  const locales = useMemo(localeSuggestions, []);

  const unsupported = error?.code === "EXTENSIONS_UNSUPPORTED";
  const hasProblem = problems.size > 0 || unsupported || (error?.fields.some((f) => isAdvancedField(f.field.replace(/^input\./, ""))) ?? false);
  useEffect(() => {
    if (hasProblem) setOpen(true);
  }, [hasProblem]);

  const msg = (field: string) => problems.get(field) ?? fieldMessage(error, field);
  const text = (field: keyof AdvancedState) => ({
    value: state[field] as string,
    onChange: (e: { target: { value: string } }) => onChange({ [field]: e.target.value }),
  });
  const described = (id: string, field: string, hint?: boolean) => ({
    "aria-describedby": [hint ? `${id}-hint` : "", msg(field) ? `${id}-error` : ""].join(" ").trim() || undefined,
  });

  return (
    <div className="span-2 advanced">
      <button type="button" className="disclosure" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen((o) => !o)}>
        <ChevronIcon className="disclosure-chevron" />
        <span className="disclosure-title">Advanced</span>
        <span className="muted small">{count > 0 ? `${count} set` : "Metadata, browser settings, extensions"}</span>
      </button>
      <div id={bodyId} className="advanced-body form-grid" hidden={!open}>
        <MetadataRows
          rows={state.metadata}
          onChange={(metadata) => onChange({ metadata })}
          message={(r) => problems.get(rowField(r.row)) ?? (r.key.trim() ? fieldMessage(error, `metadata.${r.key.trim()}`) : undefined)}
          groupMessage={msg("metadata")}
        />

        <fieldset className="span-2 option-group browser-group">
          <legend className="field-label">Browser</legend>
          <p className="field-hint">They hold in every tab, frame and worker of the session. Empty fields keep Chromium’s defaults.</p>
          <Field id="ns-width" label="Viewport width (px)" error={msg("browser.viewport.width")}>
            <input
              id="ns-width"
              type="number"
              inputMode="numeric"
              min={200}
              max={3840}
              step={1}
              placeholder="1280"
              {...text("width")}
              {...described("ns-width", "browser.viewport.width")}
            />
          </Field>
          <Field id="ns-height" label="Viewport height (px)" hint="200–3840 each, both or neither." error={msg("browser.viewport.height")}>
            <input
              id="ns-height"
              type="number"
              inputMode="numeric"
              min={200}
              max={3840}
              step={1}
              placeholder="800"
              {...text("height")}
              {...described("ns-height", "browser.viewport.height", true)}
            />
          </Field>
          <div className="span-2">
            <Field id="ns-ua" label="User agent" error={msg("browser.user_agent")}>
              <input
                id="ns-ua"
                type="text"
                maxLength={512}
                spellCheck={false}
                autoComplete="off"
                placeholder="Chromium’s own"
                {...text("userAgent")}
                {...described("ns-ua", "browser.user_agent")}
              />
            </Field>
          </div>
          <Field id="ns-locale" label="Locale" hint="A BCP 47 tag: en-US, fr-CH." error={msg("browser.locale")}>
            <input
              id="ns-locale"
              type="text"
              list="ns-locales"
              spellCheck={false}
              autoComplete="off"
              placeholder="en-US"
              {...text("locale")}
              {...described("ns-locale", "browser.locale", true)}
            />
          </Field>
          <datalist id="ns-locales">
            {locales.map((l) => (
              <option key={l} value={l} />
            ))}
          </datalist>
          <Field id="ns-timezone" label="Time zone" hint="An IANA zone: Europe/Zurich, UTC." error={msg("browser.timezone")}>
            <input
              id="ns-timezone"
              type="text"
              list="ns-zones"
              spellCheck={false}
              autoComplete="off"
              placeholder="UTC"
              {...text("timezone")}
              {...described("ns-timezone", "browser.timezone", true)}
            />
          </Field>
          <datalist id="ns-zones">
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          <div className="span-2 geo-grid">
            <Field id="ns-lat" label="Latitude (°)" error={msg("browser.geolocation.latitude")}>
              <input
                id="ns-lat"
                type="number"
                inputMode="decimal"
                min={-90}
                max={90}
                step="any"
                placeholder="46.95"
                {...text("latitude")}
                {...described("ns-lat", "browser.geolocation.latitude")}
              />
            </Field>
            <Field id="ns-lon" label="Longitude (°)" error={msg("browser.geolocation.longitude")}>
              <input
                id="ns-lon"
                type="number"
                inputMode="decimal"
                min={-180}
                max={180}
                step="any"
                placeholder="7.45"
                {...text("longitude")}
                {...described("ns-lon", "browser.geolocation.longitude")}
              />
            </Field>
            <Field id="ns-acc" label="Accuracy (m)" error={msg("browser.geolocation.accuracy")}>
              <input
                id="ns-acc"
                type="number"
                inputMode="decimal"
                min={0}
                max={100000}
                step="any"
                placeholder="10"
                {...text("accuracy")}
                {...described("ns-acc", "browser.geolocation.accuracy")}
              />
            </Field>
          </div>
        </fieldset>

        <ExtensionPicker selected={state.extensionIds} onChange={(extensionIds) => onChange({ extensionIds })} error={error} message={msg("extension_ids")} />
      </div>
    </div>
  );
}

/** The workspace's extensions as checkboxes; the note about full Chromium when the create said so. */
function ExtensionPicker({
  selected,
  onChange,
  error,
  message,
}: {
  selected: string[];
  onChange: (ids: string[]) => void;
  error: ApiError | undefined;
  message: string | undefined;
}) {
  const ws = useWorkspace();
  const list = useQuery(ExtensionsDocument, { workspace: ws.slug });
  const items = list.data?.extensions ?? [];
  return (
    <fieldset className="span-2 option-group">
      <legend className="field-label">Extensions</legend>
      {list.data && items.length === 0 ? (
        <p className="field-hint">
          This workspace has no extensions. <Link to={wsPath(ws.slug, "extensions")}>Upload one</Link> to load it into sessions.
        </p>
      ) : (
        <p className="field-hint">Loaded into this session only. They need the deployment to run full Chromium.</p>
      )}
      {items.length > 0 ? (
        <div className="extension-choices">
          {items.map((e) => (
            <label key={e.id} className="check">
              <input
                type="checkbox"
                checked={selected.includes(e.id)}
                onChange={(ev) => onChange(ev.target.checked ? [...selected, e.id] : selected.filter((id) => id !== e.id))}
              />
              <span>
                {e.name} <span className="muted">{e.version}</span>
                <span className="field-hint block">
                  {formatBytes(e.sizeBytes)} · <span className="mono">{e.id}</span>
                </span>
              </span>
            </label>
          ))}
        </div>
      ) : null}
      {message ? (
        <p className="field-error" role="alert">
          {message}
        </p>
      ) : null}
      {error?.code === "EXTENSIONS_UNSUPPORTED" ? (
        <div role="alert">
          <Notice tone="warning" title="Extensions need full Chromium">
            <p>{error.message}</p>
            <p>Untick them to start this session without extensions.</p>
          </Notice>
        </div>
      ) : null}
    </fieldset>
  );
}
