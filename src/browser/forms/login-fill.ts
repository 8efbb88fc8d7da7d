import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";
import { activeTab } from "../cdp/pipe/active-tab.ts";
import { fieldFinder, focusField, loginFields, submitForm, type LoginField } from "./login-fields.ts";

/**
 * Fills a login form in a browser's active tab (cdp/pipe/active-tab.ts: the same tab the live view, the
 * recording and the session's `page` show) from the server's own connection to the browser (a
 * channel of its own on the pipe, browser/cdp/pipe/client.ts): what is typed never passes through a
 * CDP client's socket, and no client sees these commands. Only the tab's top document is searched and
 * typed into, and only when its origin (the browser's own `securityOrigin`, which no page script can
 * change) is one of `origins`; a form in a frame of another origin is never reached, as the search
 * does not enter frames. Values are typed as key presses (Input.dispatchKeyEvent), so the page sees
 * the keydown, input and keyup events a person's typing makes.
 */

export type { LoginField };

export interface LoginFill {
  origins: readonly string[];
  values: Partial<Record<LoginField, string>>;
  /** CSS selectors in the top document; a field without one is found by its autocomplete token (login-fields.ts). */
  selectors: Partial<Record<LoginField, string>>;
  submit: boolean;
}

export type LoginFillResult =
  | { outcome: "filled"; filled: LoginField[]; origin: string }
  | { outcome: "origin-mismatch"; origin: string | null }
  | { outcome: "no-tab" };

interface FrameTree {
  frame: { id: string; securityOrigin?: string };
}

/** Every page tab must answer within this; a hung one fails the fill rather than the request hanging. */
const OPEN_TIMEOUT_MS = 5_000;

export async function fillLogin(pipe: CdpPipe, fill: LoginFill): Promise<LoginFillResult> {
  const cdp = await CdpClient.open(pipe, OPEN_TIMEOUT_MS);
  try {
    const tab = (await activeTab(cdp, pipe))?.targetId;
    if (!tab) return { outcome: "no-tab" };
    let attachment: string | undefined;
    try {
      ({ sessionId: attachment } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: tab, flatten: true }));
      return await fillIn(cdp, attachment, fill);
    } finally {
      if (attachment) cdp.post("Target.detachFromTarget", { sessionId: attachment });
    }
  } finally {
    cdp.close();
  }
}

async function topFrame(cdp: CdpClient, attachment: string): Promise<{ id: string; origin: string | null }> {
  const { frameTree } = await cdp.send<{ frameTree: FrameTree }>("Page.getFrameTree", {}, attachment);
  const origin = frameTree.frame.securityOrigin;
  return { id: frameTree.frame.id, origin: origin && origin !== "null" ? origin : null };
}

async function fillIn(cdp: CdpClient, attachment: string, fill: LoginFill): Promise<LoginFillResult> {
  const frame = await topFrame(cdp, attachment);
  if (!frame.origin || !fill.origins.includes(frame.origin)) return { outcome: "origin-mismatch", origin: frame.origin };
  // A world of our own: page scripts cannot see or replace what the search runs with.
  const { executionContextId } = await cdp.send<{ executionContextId: number }>(
    "Page.createIsolatedWorld",
    { frameId: frame.id, worldName: "vessel-fill", grantUniveralAccess: false },
    attachment,
  );
  const found = await fieldFinder(cdp, attachment, executionContextId, fill.selectors);
  const filled: LoginField[] = [];
  let last: string | undefined;
  for (const field of loginFields) {
    const value = fill.values[field];
    const element = found[field];
    if (value === undefined || value === "" || !element) continue;
    // The page may have navigated meanwhile: never type into another origin's document.
    const now = await topFrame(cdp, attachment);
    if (now.id !== frame.id || now.origin !== frame.origin) return { outcome: "origin-mismatch", origin: now.origin };
    if (!(await focusField(cdp, attachment, element))) continue;
    await typeText(cdp, attachment, value);
    filled.push(field);
    last = element;
  }
  if (fill.submit && last) await submitForm(cdp, attachment, last);
  return { outcome: "filled", filled, origin: frame.origin };
}

/** One key press per character, as a person's typing sends them (and as Puppeteer's `type` does). */
async function typeText(cdp: CdpClient, attachment: string, value: string): Promise<void> {
  for (const ch of value) {
    await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key: ch, text: ch, unmodifiedText: ch }, attachment);
    await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key: ch }, attachment);
  }
}
