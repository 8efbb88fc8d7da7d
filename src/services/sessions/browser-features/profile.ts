import { AppError } from "../../../errors.ts";
import { readDocument } from "../../profiles/profile-documents.ts";
import { restoreProfileIntoSession } from "../../profiles/profile-sessions.ts";
import { defineFeature } from "./feature.ts";

/**
 * `profile_id`: the saved profile is read (and decrypted) before anything is taken, so an unreadable
 * one is refused with nothing to undo; it goes into the browser once the row is written (its work
 * would otherwise hold up the statement on this thread) and before any channel is opened: the
 * browser's pipe holds them until it is in place. Its cookies and storage stay in the browser.
 */
export const profile = defineFeature({
  name: "profile",
  reads: ["profile_id"],
  phase: "recorded",
  dirtiesSpare: true,
  wanted: ({ input }) => Boolean(input.profile_id),
  check: async ({ ctx, input, workspaceId }) => {
    if (!input.profile_id) return undefined;
    return readDocument(ctx.deps, ctx, workspaceId, input.profile_id).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 404) throw new AppError("not-found", "No profile with this profile_id in this workspace.");
      throw err;
    });
  },
  apply: ({ ctx, input, lease }, document) => {
    if (input.profile_id && document) restoreProfileIntoSession(ctx, input.profile_id, document, lease);
  },
});
