// What a setting is, apart from the list of them: src/settings.ts and its parts by area
// (settings-*.ts) declare settings of this shape, src/config.ts reads them. A leaf, so the parts
// need not import the list they are concatenated into.

/** One documented setting: where it lives in the file, which variable overrides it, and its default. */
export interface Setting {
  key: string;
  env: string;
  kind: "string" | "number" | "list" | "boolean";
  description: string;
  fallback?: (partial: Record<string, unknown>) => unknown;
  /** The default comes from another setting: a problem with it is that setting's, reported there once. */
  derived?: boolean;
}

/** The value at a dotted key ("mail.smtp.port") of a nested object, or undefined. */
export function getPath(obj: Record<string, unknown>, key: string): unknown {
  return key.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}
