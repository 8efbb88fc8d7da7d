import { Field } from "../components/ui.tsx";
import { declaredOptions, optionLabel, type DeclaredState } from "./declared-options.ts";

/**
 * A generic control for each declared create option the dialog has no hand-made control for
 * (declared-options.ts): a checkbox, a text or number field, or a choice. Renders nothing when there
 * is none.
 */
export function DeclaredOptionFields({
  state,
  onChange,
  problem,
}: {
  state: DeclaredState;
  onChange: (name: string, value: string | boolean) => void;
  problem: (field: string) => string | undefined;
}) {
  if (declaredOptions.length === 0) return null;
  return (
    <fieldset className="span-2 option-group">
      <legend className="field-label">More options</legend>
      {declaredOptions.map((o) => {
        const id = `ns-opt-${o.name}`;
        const error = problem(o.name);
        if (o.kind === "boolean") {
          return (
            <label key={o.name} className="check span-2" data-option={o.name}>
              <input id={id} type="checkbox" checked={state[o.name] === true} onChange={(e) => onChange(o.name, e.target.checked)} />
              <span>
                {optionLabel(o.name)}
                {o.description ? <span className="field-hint block">{o.description}</span> : null}
                {error ? (
                  <span className="field-error block" role="alert">
                    {error}
                  </span>
                ) : null}
              </span>
            </label>
          );
        }
        const value = typeof state[o.name] === "string" ? (state[o.name] as string) : "";
        return (
          <div key={o.name} className="span-2" data-option={o.name}>
            <Field id={id} label={optionLabel(o.name)} hint={o.description} error={error}>
              {o.kind === "enum" ? (
                <select id={id} value={value} onChange={(e) => onChange(o.name, e.target.value)}>
                  <option value="">Default</option>
                  {(o.values ?? []).map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={id}
                  type={o.kind === "string" ? "text" : "number"}
                  {...(o.kind === "string" ? { maxLength: o.maxLength } : { min: o.minimum, max: o.maximum, step: o.kind === "integer" ? 1 : "any" })}
                  value={value}
                  onChange={(e) => onChange(o.name, e.target.value)}
                  aria-describedby={o.description ? `${id}-hint` : undefined}
                />
              )}
            </Field>
          </div>
        );
      })}
    </fieldset>
  );
}
