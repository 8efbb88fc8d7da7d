// Beneath everything (the logger writes with it; the kernel's text faults name fields with it): a
// leaf, so that nothing low imports the kernel.

/** `s` with NUL, other C0 controls and lone surrogates written as `\uXXXX`: for a value only recorded, never refused. */
export function escapeText(s: string): string {
  if (!/[\u0000-\u001f\u007f\ud800-\udfff]/.test(s)) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const high = c >= 0xd800 && c <= 0xdbff;
    const pair = high && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    if (pair) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else if (c < 0x20 || c === 0x7f || (c >= 0xd800 && c <= 0xdfff)) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i]!;
  }
  return out;
}
