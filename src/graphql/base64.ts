/**
 * Whether a GraphQL upload argument is canonical base64 (RFC 4648, padded). Checked in one linear
 * pass: a pattern of repeated four-character groups backtracks per group and overflows V8's regexp
 * stack on inputs of a few MiB (an extension zip of 4 MiB answered "Unexpected error.").
 */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  const body = text.endsWith("==") ? text.slice(0, -2) : text.endsWith("=") ? text.slice(0, -1) : text;
  return /^[A-Za-z0-9+/]*$/.test(body);
}
