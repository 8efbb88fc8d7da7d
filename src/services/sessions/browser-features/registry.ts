// The browser features a create may ask for. A new create option that changes the browser is one
// file in this folder and one line here; the pool rule (spareDirtiedBy) follows from its declaration.
import { browserSettings } from "./browser-settings.ts";
import { extensions } from "./extensions.ts";
import type { BrowserFeature } from "./feature.ts";
import { sessionLogs } from "./logs.ts";
import { networkPolicy } from "./network-policy.ts";
import { profile } from "./profile.ts";
import { upstreamProxy } from "./proxy.ts";
import { recording } from "./recording.ts";
import { startUrl } from "./start-url.ts";

/** In the order they are checked and, within a phase, applied. */
export const browserFeatures: readonly BrowserFeature[] = [
  networkPolicy,
  upstreamProxy,
  profile,
  extensions,
  browserSettings,
  sessionLogs,
  recording,
  startUrl,
];
