/** What a new API key may do beyond sessions and profiles (src/auth/scopes.ts): none unless ticked. */
const scopeChoices = [
  ["credentials:use", "Fill stored logins into sessions"],
  ["credentials:manage", "Add, change and delete stored logins"],
] as const;

export function ScopeChecks({ scopes, onChange }: { scopes: string[]; onChange: (next: string[]) => void }) {
  return (
    <fieldset className="checks">
      <legend>Credentials</legend>
      {scopeChoices.map(([scope, text]) => (
        <label key={scope}>
          <input
            type="checkbox"
            checked={scopes.includes(scope)}
            onChange={(e) => onChange(e.target.checked ? [...scopes, scope] : scopes.filter((x) => x !== scope))}
          />{" "}
          {text} <code>{scope}</code>
        </label>
      ))}
    </fieldset>
  );
}
