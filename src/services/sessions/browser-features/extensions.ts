import { checkSessionExtensions, loadSessionExtensions } from "../../extensions/extensions.ts";
import { defineFeature } from "./feature.ts";

/**
 * `extension_ids`: the workspace's extensions, checked and prepared before a browser is taken,
 * copied into the browser's folder and loaded before the create is answered. A loaded extension
 * cannot be unloaded cleanly: the browser is never a spare again.
 */
export const extensions = defineFeature({
  name: "extensions",
  reads: ["extension_ids"],
  phase: "leased",
  dirtiesSpare: true,
  slow: true,
  wanted: ({ input }) => Boolean(input.extension_ids?.length),
  check: ({ ctx, input, workspaceId }) => checkSessionExtensions(ctx, workspaceId, input.extension_ids ?? []),
  apply: ({ ctx, input, workspaceId, lease }) => loadSessionExtensions(ctx, workspaceId, input.extension_ids ?? [], lease),
});
