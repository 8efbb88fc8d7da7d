import { applyBrowserSettings } from "../../../browser/features/browser-settings.ts";
import { toBrowserSettings } from "../browser-settings-input.ts";
import { defineFeature } from "./feature.ts";

/**
 * `browser` (viewport, user agent, locale, time zone, geolocation): set before the create is
 * answered, so the spare's first tab already has them for the first client. They live on a channel
 * of the node's own; closing it undoes them (Chromium drops a channel's overrides as it detaches),
 * so a browser given back unused is a clean spare.
 */
export const browserSettings = defineFeature({
  name: "browser settings",
  reads: ["browser"],
  phase: "leased",
  dirtiesSpare: false,
  wanted: ({ input }) => input.browser !== undefined,
  apply: async ({ input, lease }) => {
    const channel = await applyBrowserSettings(lease.cdp, toBrowserSettings(input.browser!));
    return () => channel.close();
  },
});
