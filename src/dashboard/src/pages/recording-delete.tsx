import { useState } from "react";
import { DeleteRecordingDocument } from "@gql/graphql.ts";
import { useMutation } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { shortId } from "../components/session-bits.tsx";
import { Button } from "../components/ui.tsx";
import { ConfirmDialog } from "../components/dialogs.tsx";

/**
 * "Delete recording", asked first like the other deletions. Offered to every member: the service
 * lets any role of the workspace delete a session's recording (as any may watch it), so someone who
 * sees a password typed on camera can remove it at once. `onGone` hears that there is no recording
 * any more: "deleted" here, or "missing" when the dialog is closed on a 404 (someone else deleted it,
 * or its retention ran out, since the page read it).
 */
export function DeleteRecordingButton({ sessionId, onGone }: { sessionId: string; onGone: (how: "deleted" | "missing") => void }) {
  const ws = useWorkspace();
  const remove = useMutation(DeleteRecordingDocument);
  const [confirming, setConfirming] = useState(false);
  const doDelete = async () => {
    if (await remove.run({ workspace: ws.slug, id: sessionId })) {
      setConfirming(false);
      onGone("deleted");
    }
  };
  const close = () => {
    setConfirming(false);
    if (remove.error?.code === "NOT_FOUND") onGone("missing");
  };
  return (
    <>
      <Button
        size="sm"
        variant="ghost"
        className="danger-text"
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
      >
        Delete recording
      </Button>
      <ConfirmDialog
        open={confirming}
        onClose={close}
        onConfirm={() => void doDelete()}
        title="Delete this recording?"
        confirmLabel="Delete recording"
        pending={remove.pending}
        error={remove.error}
      >
        <p>
          The video of session <span className="mono">{shortId(sessionId)}</span> and its encryption key are destroyed; it cannot be played or downloaded again,
          by anyone. Its logs and events stay. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
