import type { CdpClient } from "../browser/cdp/pipe/client.ts";

/**
 * A person handed a session on a phone (an interactive live view, portrait, narrow) got a desktop
 * page letterboxed into a third of their screen, too small to read or tap. While they watch, the tab
 * they see is laid out for their screen instead (Emulation.setDeviceMetricsOverride on the viewer's
 * own CDP attachment, which Chromium drops as that attachment detaches: when they switch tabs or leave).
 * Not for view-only watchers, who should not change what the automation sees, nor for sessions
 * created with a viewport of their own (browser.viewport), which they asked to keep.
 */

const PHONE_MAX_WIDTH = 600;

export interface FitSubject {
  interactive: boolean;
  /** The session's own browser settings, as given at create (`viewport` among them, if any). */
  browser: unknown;
}

/** The metrics to lay the page out with for this viewer, or null to leave the page as it is. */
export function phoneMetrics(
  viewport: { w: number; h: number; dpr: number },
  subject: FitSubject,
): { width: number; height: number; deviceScaleFactor: number; mobile: true } | null {
  const ownViewport =
    typeof subject.browser === "object" &&
    subject.browser !== null &&
    "viewport" in subject.browser &&
    Boolean((subject.browser as { viewport?: unknown }).viewport);
  if (!subject.interactive || ownViewport) return null;
  if (viewport.w >= PHONE_MAX_WIDTH || viewport.h <= viewport.w) return null;
  return { width: Math.round(viewport.w), height: Math.round(viewport.h), deviceScaleFactor: Math.min(3, Math.max(1, viewport.dpr)), mobile: true };
}

/** Applies (or undoes, where this viewer applied it before) the phone layout on the viewer's attachment to a tab. */
export function phoneFitter(cdp: CdpClient, viewport: () => { w: number; h: number; dpr: number }, subject: FitSubject) {
  const fitted = new Set<string>();
  return async (attachment: string): Promise<void> => {
    const metrics = phoneMetrics(viewport(), subject);
    if (metrics) {
      // Marked before the send: an undo asked while it is in flight must see it (the tab's attachment
      // runs the two commands in the order sent, so the undo wins).
      fitted.add(attachment);
      await cdp.send("Emulation.setDeviceMetricsOverride", metrics, attachment);
    } else if (fitted.delete(attachment)) {
      await cdp.send("Emulation.clearDeviceMetricsOverride", {}, attachment);
    }
  };
}
