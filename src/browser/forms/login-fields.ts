import type { CdpClient } from "../cdp/pipe/client.ts";

export const loginFields = ["username", "password", "totp"] as const;
export type LoginField = (typeof loginFields)[number];

/**
 * Finds one login field in the top document (never inside a frame: querySelector does not enter one),
 * run in the fill's isolated world. With a selector, the element it names, if it is a usable input;
 * without, by the autocomplete tokens sites mark login fields with (`username`, `current-password`,
 * `one-time-code`), then a password input, then for the username the text or email input before it
 * in the same form (Chromium's password manager guesses the same way).
 */
const FIND = `function (field, selector) {
  const usable = (el) => el instanceof HTMLInputElement && !el.disabled && !el.readOnly && el.type !== "hidden" && el.getClientRects().length > 0;
  if (selector) {
    let el = null;
    try { el = document.querySelector(selector); } catch {}
    return el && usable(el) ? el : null;
  }
  const all = Array.from(document.querySelectorAll("input")).filter(usable);
  const token = (el, t) => (el.getAttribute("autocomplete") || "").toLowerCase().split(/\\s+/).includes(t);
  const password = all.find((el) => token(el, "current-password")) || all.find((el) => el.type === "password" && !token(el, "new-password"));
  if (field === "password") return password || null;
  if (field === "totp") return all.find((el) => token(el, "one-time-code")) || null;
  const named = all.find((el) => token(el, "username"));
  if (named) return named;
  if (!password) return all.find((el) => token(el, "email")) || null;
  const before = all.filter((el) =>
    ["text", "email", "tel"].includes(el.type) &&
    el.form === password.form &&
    (el.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0);
  return before[before.length - 1] || null;
}`;

const FOCUS = `function () {
  this.focus();
  if (typeof this.select === "function") this.select();
  return document.activeElement === this;
}`;

const SUBMIT = `function () {
  const form = this.form;
  if (!form) return false;
  const button = form.querySelector('button[type="submit"], input[type="submit"], button:not([type])');
  if (typeof form.requestSubmit === "function") form.requestSubmit(button && button.form === form ? button : undefined);
  else form.submit();
  return true;
}`;

/** The remote object ids of the fields found, by field. */
export async function fieldFinder(
  cdp: CdpClient,
  attachment: string,
  executionContextId: number,
  selectors: Partial<Record<LoginField, string>>,
): Promise<Partial<Record<LoginField, string>>> {
  const found: Partial<Record<LoginField, string>> = {};
  for (const field of loginFields) {
    const { result } = await cdp.send<{ result: { objectId?: string; subtype?: string } }>(
      "Runtime.callFunctionOn",
      { functionDeclaration: FIND, executionContextId, arguments: [{ value: field }, { value: selectors[field] ?? null }], silent: true },
      attachment,
    );
    if (result.objectId && result.subtype !== "null") found[field] = result.objectId;
  }
  // The username search may land on the password field itself (a selector naming it): never type one value over another.
  if (found.username && found.username === found.password) delete found.username;
  return found;
}

/** Focuses the field and selects what it holds (typing replaces it); false when the focus did not land there. */
export async function focusField(cdp: CdpClient, attachment: string, objectId: string): Promise<boolean> {
  const { result } = await cdp.send<{ result: { value?: unknown } }>(
    "Runtime.callFunctionOn",
    { functionDeclaration: FOCUS, objectId, returnByValue: true, silent: true },
    attachment,
  );
  return result.value === true;
}

/** Submits the field's form as its submit button would; a field outside any form gets an Enter key press. */
export async function submitForm(cdp: CdpClient, attachment: string, objectId: string): Promise<void> {
  const { result } = await cdp.send<{ result: { value?: unknown } }>(
    "Runtime.callFunctionOn",
    { functionDeclaration: SUBMIT, objectId, returnByValue: true, silent: true },
    attachment,
  );
  if (result.value === true) return;
  const enter = { key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13 };
  await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", ...enter, text: "\r", unmodifiedText: "\r" }, attachment);
  await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", ...enter }, attachment);
}
