import { useEffect, useRef } from "react";
import { MAX_METADATA } from "../lib/metadata.ts";
import { Button } from "../components/ui.tsx";
import { CloseIcon, PlusIcon } from "../components/icons.tsx";
import type { MetadataRow } from "./new-session-options.ts";

let nextRow = 1;

/**
 * The new session's metadata as key/value rows: added one at a time (at most 16, as the server
 * allows), each removable; a row's problem is shown under it. `message(row)` finds it.
 */
export function MetadataRows({
  rows,
  onChange,
  message,
  groupMessage,
}: {
  rows: MetadataRow[];
  onChange: (rows: MetadataRow[]) => void;
  message: (row: MetadataRow) => string | undefined;
  groupMessage: string | undefined;
}) {
  const list = useRef<HTMLDivElement>(null);
  const added = useRef<number | null>(null);

  // A new row takes the focus on its key, so adding one is a single keystroke away from typing.
  useEffect(() => {
    if (added.current === null) return;
    list.current?.querySelector<HTMLInputElement>(`[data-row="${added.current}"] input`)?.focus();
    added.current = null;
  }, [rows]);

  const update = (row: number, patch: Partial<MetadataRow>) => onChange(rows.map((r) => (r.row === row ? { ...r, ...patch } : r)));
  const full = rows.length >= MAX_METADATA;

  return (
    <fieldset className="span-2 option-group">
      <legend className="field-label">Metadata</legend>
      <p className="field-hint">Your own labels, shown in the sessions list and filterable there. Keys: a-z, 0-9, _ . - (up to 64 characters).</p>
      <div className="meta-rows" ref={list}>
        {rows.map((r, i) => {
          const problem = message(r);
          const errorId = `ns-meta-${r.row}-error`;
          return (
            <div key={r.row} className={`meta-row${problem ? " field-invalid" : ""}`} data-row={r.row}>
              <input
                aria-label={`Key ${i + 1}`}
                placeholder="key"
                autoComplete="off"
                spellCheck={false}
                maxLength={64}
                value={r.key}
                onChange={(e) => update(r.row, { key: e.target.value })}
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? errorId : undefined}
              />
              <span className="meta-eq" aria-hidden="true">
                =
              </span>
              <input
                aria-label={`Value ${i + 1}`}
                placeholder="value"
                autoComplete="off"
                maxLength={512}
                value={r.value}
                onChange={(e) => update(r.row, { value: e.target.value })}
              />
              <button
                type="button"
                className="icon-btn"
                aria-label={`Remove metadata ${r.key || i + 1}`}
                onClick={() => onChange(rows.filter((x) => x.row !== r.row))}
              >
                <CloseIcon />
              </button>
              {problem ? (
                <p id={errorId} className="field-error meta-row-error" role="alert">
                  {problem}
                </p>
              ) : null}
            </div>
          );
        })}
      </div>
      <div className="meta-add">
        <Button
          size="sm"
          disabled={full}
          onClick={() => {
            added.current = nextRow++;
            onChange([...rows, { row: added.current, key: "", value: "" }]);
          }}
        >
          <PlusIcon /> Add metadata
        </Button>
        {full ? <span className="field-hint">At most {MAX_METADATA} keys.</span> : null}
      </div>
      {groupMessage ? (
        <p className="field-error" role="alert">
          {groupMessage}
        </p>
      ) : null}
    </fieldset>
  );
}
