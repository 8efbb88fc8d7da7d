import { useId, useState, type FormEvent } from "react";
import { MAX_METADATA, parsePair, setMetadataFilters, withFilter, type MetadataPair } from "../lib/metadata.ts";
import { FilterChips } from "../components/metadata-chips.tsx";
import { Button } from "../components/ui.tsx";
import { PlusIcon } from "../components/icons.tsx";

/**
 * The sessions list's metadata filter: type `key=value` and press Enter (or Add) for each; every
 * filter must match, as the server's `sessions(metadata:)` decides. The filters are in the address.
 */
export function MetadataFilterInput({ filters }: { filters: MetadataPair[] }) {
  const id = useId();
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | undefined>();

  const add = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    const parsed = parsePair(text);
    if ("problem" in parsed) return setProblem(parsed.problem);
    const next = withFilter(filters, parsed.pair);
    if (next.length > MAX_METADATA) return setProblem(`At most ${MAX_METADATA} metadata filters.`);
    setProblem(undefined);
    setText("");
    setMetadataFilters(next);
  };

  return (
    <form className="meta-filter" onSubmit={add} noValidate>
      <label htmlFor={id} className="visually-hidden">
        Filter by metadata, as key=value
      </label>
      <input
        id={id}
        type="text"
        placeholder="Metadata: key=value"
        autoComplete="off"
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setProblem(undefined);
        }}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
      />
      <Button type="submit" disabled={!text.trim()}>
        <PlusIcon /> Filter
      </Button>
      {problem ? (
        <p id={`${id}-error`} className="field-error meta-filter-error" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}

/** The active filters under the toolbar, each removable, with a way to drop them all. */
export function ActiveMetadataFilters({ filters }: { filters: MetadataPair[] }) {
  if (filters.length === 0) return null;
  return (
    <div className="active-filters">
      <span className="muted small">Metadata</span>
      <FilterChips filters={filters} onRemove={(p) => setMetadataFilters(filters.filter((f) => f.key !== p.key))} />
      {filters.length > 1 ? (
        <button type="button" className="link-btn small" onClick={() => setMetadataFilters([])}>
          Clear all
        </button>
      ) : null}
    </div>
  );
}
