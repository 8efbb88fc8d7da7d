import { applyBrowserSettings } from "../../../browser/features/browser-settings.ts";
import { defineFeature } from "./feature.ts";

const AD_URLS = ["*doubleclick.net*", "*googlesyndication.com*", "*/ads/*"];

/** `block_ads`: well-known ad addresses refused in every tab and worker, on a channel of the node's own (closing it undoes it). */
export const blockAds = defineFeature({
  name: "block ads",
  reads: ["block_ads"],
  phase: "leased",
  dirtiesSpare: false,
  wanted: ({ input }) => input.block_ads === true,
  apply: async ({ lease }) => {
    const channel = await applyBrowserSettings(lease.cdp, { blockedUrls: AD_URLS });
    return () => channel.close();
  },
});
