// The audit log's filter form and the button that folds it away on phones, apart from the page so the
// page reads as "query, export, table". The filters live in the address (setSearch): the form only
// writes them there, and the page reads them back and queries.

import { useState, type FormEvent } from "react";
import type { ApiKeysQuery, MembersQuery } from "@gql/graphql.ts";
import { setSearch } from "../lib/router.tsx";
import { Button } from "../components/ui.tsx";
import { knownActions } from "./audit-log-filters.ts";

/** The filters as the address holds them; "" is no filter. */
export interface AuditFilters {
  keyPrefix: string;
  actorUserId: string;
  action: string;
  target: string;
  since: string;
  until: string;
}

interface Props {
  filters: AuditFilters;
  apiKeys: ApiKeysQuery["apiKeys"];
  members: MembersQuery["members"];
  /** Member emails by user id: an actor filter naming someone no longer a member still shows as an option. */
  emails: Map<string, string>;
}

export function AuditFilterForm({ filters, apiKeys, members, emails }: Props) {
  const [showFilters, setShowFilters] = useState(false);
  const activeFilters = Object.values(filters).filter(Boolean).length;
  const anyFilter = activeFilters > 0;

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const get = (k: string) => String(f.get(k) ?? "").trim() || undefined;
    setSearch({ key: get("key"), actor: get("actor"), action: get("action"), target: get("target"), since: get("since"), until: get("until") });
  };

  return (
    <>
      {/* On phones the filters fold away behind this button. */}
      <button
        type="button"
        className="btn btn-secondary filters-toggle"
        aria-expanded={showFilters}
        aria-controls="audit-filters"
        onClick={() => setShowFilters((v) => !v)}
      >
        {showFilters ? "Hide filters" : "Filters"}
        {activeFilters > 0 ? <span className="segment-count">{activeFilters}</span> : null}
      </button>
      <form
        id="audit-filters"
        className={`filters card${showFilters ? " open" : ""}`}
        onSubmit={apply}
        key={JSON.stringify(filters)}
        aria-label="Filter the audit log"
      >
        <label className="filter">
          <span className="field-label">API key</span>
          <input name="key" list="audit-keys" defaultValue={filters.keyPrefix} placeholder="vs_01…" spellCheck={false} className="mono" />
          <datalist id="audit-keys">
            {apiKeys.map((k) => (
              <option key={k.id} value={k.prefix}>
                {k.label}
              </option>
            ))}
          </datalist>
        </label>
        <label className="filter">
          <span className="field-label">Person</span>
          <select name="actor" defaultValue={filters.actorUserId}>
            <option value="">Anyone</option>
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.email}
              </option>
            ))}
            {filters.actorUserId && !emails.has(filters.actorUserId) ? <option value={filters.actorUserId}>{filters.actorUserId}</option> : null}
          </select>
        </label>
        <label className="filter">
          <span className="field-label">Action</span>
          <input name="action" list="audit-actions" defaultValue={filters.action} placeholder="session.create" spellCheck={false} />
          <datalist id="audit-actions">
            {knownActions.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label className="filter">
          <span className="field-label">Target</span>
          <input name="target" defaultValue={filters.target} placeholder="ses_… or a key id" spellCheck={false} />
        </label>
        <label className="filter">
          <span className="field-label">From</span>
          <input name="since" type="datetime-local" step={1} defaultValue={filters.since} />
        </label>
        <label className="filter">
          <span className="field-label">Until</span>
          <input name="until" type="datetime-local" step={1} defaultValue={filters.until} />
        </label>
        <div className="filter-actions">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          {anyFilter ? (
            <Button
              variant="ghost"
              onClick={() => setSearch({ key: undefined, actor: undefined, action: undefined, target: undefined, since: undefined, until: undefined })}
            >
              Clear
            </Button>
          ) : null}
        </div>
      </form>
    </>
  );
}
