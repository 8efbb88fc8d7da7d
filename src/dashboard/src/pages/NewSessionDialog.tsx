import { useRef, useState, type FormEvent } from "react";
import { CreateSessionDocument, ProfilesDocument, RegionsDocument } from "@gql/graphql.ts";
import { uuid } from "../lib/browser.ts";
import { fieldMessage, leftOver } from "../lib/field-messages.ts";
import { formatBytes } from "../lib/format.ts";
import { useMutation, useQuery } from "../lib/hooks.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { navigate } from "../lib/router.tsx";
import { shortId } from "../components/session-bits.tsx";
import { Button, ErrorNotice, Field, Notice } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { Dialog } from "../components/dialogs.tsx";
import { AdvancedOptions } from "./new-session-advanced.tsx";
import { advancedCount, advancedInput, emptyAdvanced, isAdvancedField, type AdvancedState } from "./new-session-options.ts";
import { limitsInput, MAX_SESSION_MINUTES } from "./new-session-limits.ts";
import { declaredInput, isDeclaredField, type DeclaredState } from "./declared-options.ts";
import { DeclaredOptionFields } from "./declared-options-fields.tsx";

/** The fields this form shows next to their controls (server names); anything else goes in the notice at its foot. */
const ownFields = new Set(["region", "profile_id", "live_view", "live_view.instructions", "timeout_seconds", "idle_timeout_seconds", "start_url"]);
const placed = (field: string) => ownFields.has(field) || isAdvancedField(field) || isDeclaredField(field);

export function NewSessionDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New session"
      description="A fresh Chromium in its own process. It ends when released, at its time limit, or when idle."
      wide
    >
      {open ? <NewSessionForm onClose={onClose} /> : null}
    </Dialog>
  );
}

export function NewSessionForm({ onClose }: { onClose: () => void }) {
  const ws = useWorkspace();
  const toast = useToast();
  const regions = useQuery(RegionsDocument, {});
  const profiles = useQuery(ProfilesDocument, { workspace: ws.slug, limit: 100 });
  const create = useMutation(CreateSessionDocument);
  const err = create.error;
  const [region, setRegion] = useState("");
  const [profileId, setProfileId] = useState("");
  const [saveBack, setSaveBack] = useState(false);
  const [interactive, setInteractive] = useState(true);
  const [instructions, setInstructions] = useState("");
  const [minutes, setMinutes] = useState("30");
  const [idleMinutes, setIdleMinutes] = useState("5");
  const [startUrl, setStartUrl] = useState("");
  // Explicit on every create, so what the form shows is what the session gets (whatever the deployment's defaults).
  const [logs, setLogs] = useState(true);
  const [recording, setRecording] = useState(false);
  const [advanced, setAdvanced] = useState<AdvancedState>(emptyAdvanced);
  // Options declared on the server that this form has no control of its own for (declared-options.ts).
  const [declared, setDeclared] = useState<DeclaredState>({});
  // The form's own checks show from the first attempt to submit on, not while the first value is typed.
  const [tried, setTried] = useState(false);
  const built = advancedInput(advanced);
  const limits = limitsInput({ minutes, idleMinutes, startUrl });
  const more = declaredInput(declared);
  // The form's own complaint about a field, else the server's: one message per field, never both.
  const problem = (field: string) => (tried ? (limits.problems.get(field) ?? more.problems.get(field)) : undefined) ?? fieldMessage(err, field);
  const regionList = regions.data?.health.regions ?? [];
  const chosenRegion = region || regionList[0] || "";

  const input = {
    region: chosenRegion,
    profileId: profileId || null,
    saveProfileOnRelease: profileId ? saveBack : null,
    liveViewInteractive: interactive,
    liveViewInstructions: instructions.trim() || null,
    timeoutSeconds: limits.input.timeoutSeconds,
    idleTimeoutSeconds: limits.input.idleTimeoutSeconds,
    startUrl: limits.input.startUrl,
    logs,
    recording,
    ...built.input,
    ...more.input,
  };
  // One Idempotency-Key per distinct request: a retry of the same form cannot start a second browser.
  const key = useRef({ input: "", key: uuid() });
  const fingerprint = JSON.stringify(input);
  if (key.current.input !== fingerprint) key.current = { input: fingerprint, key: uuid() };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (built.problems.size > 0 || limits.problems.size > 0 || more.problems.size > 0) return;
    const made = await create.run({ workspace: ws.slug, idempotencyKey: key.current.key, input });
    if (!made) return;
    toast(`Session ${shortId(made.createSession.id)} started`);
    onClose();
    navigate(wsPath(ws.slug, `sessions/${made.createSession.id}`));
  };

  // Each problem is said once: next to its field, or (when no field shows it) in the notice.
  const notice = err && err.code !== "EXTENSIONS_UNSUPPORTED" ? leftOver(err, placed) : null;
  return (
    <form onSubmit={submit} noValidate className="form-grid" aria-label="New session">
      <Field id="ns-region" label="Region" error={fieldMessage(err, "region")}>
        <select id="ns-region" value={chosenRegion} onChange={(e) => setRegion(e.target.value)} disabled={!regions.data}>
          {regionList.length === 0 ? <option value="">Loading regions…</option> : null}
          {regionList.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </Field>
      <Field
        id="ns-profile"
        label="Start from a profile"
        hint="A saved login: its cookies and storage are in place before the first page loads."
        error={fieldMessage(err, "profile_id")}
      >
        <select id="ns-profile" value={profileId} onChange={(e) => setProfileId(e.target.value)} aria-describedby="ns-profile-hint">
          <option value="">None: a fresh browser</option>
          {(profiles.data?.profiles.items ?? []).map((p) => (
            <option key={p.profileId} value={p.profileId}>
              {p.label} ({formatBytes(p.sizeBytes)})
            </option>
          ))}
        </select>
      </Field>
      <label className={`check span-2${profileId ? "" : " disabled"}`}>
        <input type="checkbox" checked={saveBack && !!profileId} disabled={!profileId} onChange={(e) => setSaveBack(e.target.checked)} />
        <span>
          Save the login back into this profile when the session is released
          <span className="field-hint block">Keeps the profile current after someone logs in through the live view.</span>
        </span>
      </label>
      <fieldset className="span-2 radio-group">
        <legend className="field-label">Live view</legend>
        <label className="radio">
          <input type="radio" name="ns-lv" checked={interactive} onChange={() => setInteractive(true)} />
          <span>
            Interactive <span className="field-hint block">The person watching can click and type (CAPTCHAs, MFA, signatures).</span>
          </span>
        </label>
        <label className="radio">
          <input type="radio" name="ns-lv" checked={!interactive} onChange={() => setInteractive(false)} />
          <span>
            View only <span className="field-hint block">Watch without touching; input is dropped on the server.</span>
          </span>
        </label>
      </fieldset>
      <fieldset className="span-2 radio-group">
        <legend className="field-label">Keep a record</legend>
        <label className="check">
          <input type="checkbox" checked={logs} onChange={(e) => setLogs(e.target.checked)} />
          <span>
            Capture logs <span className="field-hint block">Console messages, page errors, navigations, network requests and CDP commands.</span>
          </span>
        </label>
        <label className="check">
          <input type="checkbox" checked={recording} onChange={(e) => setRecording(e.target.checked)} />
          <span>
            Record video <span className="field-hint block">The screen over time, to replay on this page after the session ends.</span>
          </span>
        </label>
      </fieldset>
      <div className="span-2">
        <Field
          id="ns-instructions"
          label="Instructions for the person in the live view"
          hint="Optional. Shown above the browser, with a Done button."
          error={fieldMessage(err, "live_view.instructions", "live_view")}
        >
          <textarea
            id="ns-instructions"
            rows={3}
            maxLength={2000}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
            placeholder="Log in to the supplier portal, then click Done."
            aria-describedby="ns-instructions-hint"
          />
        </Field>
      </div>
      <div className="span-2">
        <Field id="ns-start-url" label="Start URL" hint="Optional. The first tab opens it as the session starts." error={problem("start_url")}>
          <input
            id="ns-start-url"
            type="url"
            inputMode="url"
            spellCheck={false}
            value={startUrl}
            onChange={(e) => setStartUrl(e.target.value)}
            placeholder="https://example.com/"
            aria-describedby="ns-start-url-hint"
          />
        </Field>
      </div>
      <Field
        id="ns-timeout"
        label="Time limit (minutes)"
        hint="At most the session limit: 30 unless your deployment or workspace sets another."
        error={problem("timeout_seconds")}
      >
        <input
          id="ns-timeout"
          type="number"
          min={1}
          max={MAX_SESSION_MINUTES}
          step={1}
          inputMode="numeric"
          value={minutes}
          onChange={(e) => setMinutes(e.target.value)}
          aria-describedby="ns-timeout-hint"
        />
      </Field>
      <Field id="ns-idle" label="Idle timeout (minutes)" hint="With no automation client or viewer." error={problem("idle_timeout_seconds")}>
        <input
          id="ns-idle"
          type="number"
          min={1}
          max={MAX_SESSION_MINUTES}
          step={1}
          inputMode="numeric"
          value={idleMinutes}
          onChange={(e) => setIdleMinutes(e.target.value)}
          aria-describedby="ns-idle-hint"
        />
      </Field>
      <DeclaredOptionFields state={declared} onChange={(name, value) => setDeclared((d) => ({ ...d, [name]: value }))} problem={problem} />
      <AdvancedOptions
        state={advanced}
        onChange={(patch) => setAdvanced((a) => ({ ...a, ...patch }))}
        problems={tried ? built.problems : new Map()}
        error={err}
        count={advancedCount(built.input)}
      />
      {(tried && (built.problems.size > 0 || limits.problems.size > 0 || more.problems.size > 0)) || (err && !notice && err.code === "VALIDATION_FAILED") ? (
        <p className="span-2 field-error">Please correct the fields marked above.</p>
      ) : null}
      {err && notice ? (
        <div className="span-2">
          <ErrorNotice error={notice} compact />
          {err.code === "INSUFFICIENT_CAPACITY" ? <Notice>Every browser is busy. Try again in a few seconds; nothing was started.</Notice> : null}
          {err.code === "WORKSPACE_SESSION_LIMIT" ? <Notice>Release a running session of this workspace, then try again; nothing was started.</Notice> : null}
        </div>
      ) : null}
      {regions.error ? (
        <div className="span-2">
          <ErrorNotice error={regions.error} compact />
        </div>
      ) : null}
      <div className="dialog-footer span-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" pending={create.pending} disabled={!chosenRegion}>
          Start session
        </Button>
      </div>
    </form>
  );
}
