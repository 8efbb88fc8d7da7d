import { useEffect, useState, type FormEvent } from "react";
import { SaveSessionAsProfileDocument } from "@gql/graphql.ts";
import { useMutation } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Button, ErrorNotice, Field, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { Dialog } from "../components/dialogs.tsx";

export function SaveProfileDialog({ open, onClose, sessionId }: { open: boolean; onClose: () => void; sessionId: string }) {
  const ws = useWorkspace();
  const toast = useToast();
  const [label, setLabel] = useState("");
  const save = useMutation(SaveSessionAsProfileDocument);
  useEffect(() => {
    if (open) {
      setLabel("");
      save.reset();
    }
  }, [open]);
  const submit = async (_e: FormEvent) => {
    const done = await save.run({ workspace: ws.slug, sessionId, label: label.trim() });
    if (done) {
      toast(`Profile “${done.createProfile.label}” saved`);
      onClose();
    }
  };
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Save as profile"
      description="Saves this browser’s cookies, localStorage and sessionStorage, encrypted. Later sessions can start from it, already logged in."
      onSubmit={submit}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" pending={save.pending} disabled={!label.trim()}>
            Save profile
          </Button>
        </>
      }
    >
      <Field id="sp-label" label="Profile name" error={fieldError(save.error, "label")}>
        <input id="sp-label" autoFocus value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} placeholder="Supplier portal login" />
      </Field>
      {save.error ? <ErrorNotice error={save.error} compact /> : null}
    </Dialog>
  );
}
