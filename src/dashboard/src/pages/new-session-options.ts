import type { BrowserSettingsInput, MetadataEntryInput } from "@gql/graphql.ts";
import { KEY_RULE, MAX_METADATA, MAX_METADATA_VALUE, METADATA_KEY } from "../lib/metadata.ts";

// What the new-session dialog's "Advanced" part holds, and the create input it makes. Problems the
// form can see for itself are named like the server's fields, so both are shown the same way.

export interface MetadataRow {
  /** Stable while rows are added and removed (React keys, focus). */
  row: number;
  key: string;
  value: string;
}

export interface AdvancedState {
  metadata: MetadataRow[];
  width: string;
  height: string;
  userAgent: string;
  locale: string;
  timezone: string;
  latitude: string;
  longitude: string;
  accuracy: string;
  extensionIds: string[];
}

export const emptyAdvanced: AdvancedState = {
  metadata: [],
  width: "",
  height: "",
  userAgent: "",
  locale: "",
  timezone: "",
  latitude: "",
  longitude: "",
  accuracy: "",
  extensionIds: [],
};

/** A metadata row's local problem is keyed by the row (its key may be empty, or given twice). */
export const rowField = (row: number) => `metadata#${row}`;

export interface AdvancedInput {
  metadata: MetadataEntryInput[] | null;
  browser: BrowserSettingsInput | null;
  extensionIds: string[] | null;
}

function number(text: string): number | undefined | "bad" {
  if (!text.trim()) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : "bad";
}

/**
 * The create's `metadata`, `browser` and `extensionIds` (null when not given), and the problems
 * that need no server: a half-given pair (width without height), a value that is not a number, a
 * bad or repeated key. GraphQL would refuse some of these as a malformed request, not as a field.
 */
export function advancedInput(s: AdvancedState): { input: AdvancedInput; problems: Map<string, string> } {
  const problems = new Map<string, string>();
  const metadata: MetadataEntryInput[] = [];
  for (const r of s.metadata) {
    const key = r.key.trim();
    if (!key && !r.value) continue;
    if (!key) problems.set(rowField(r.row), "Give this value a key.");
    else if (!METADATA_KEY.test(key)) problems.set(rowField(r.row), KEY_RULE);
    else if (metadata.some((m) => m.key === key)) problems.set(rowField(r.row), `The key ${key} is given twice.`);
    else if (r.value.length > MAX_METADATA_VALUE) problems.set(rowField(r.row), `Values are at most ${MAX_METADATA_VALUE} characters.`);
    else metadata.push({ key, value: r.value });
  }
  if (metadata.length > MAX_METADATA) problems.set("metadata", `At most ${MAX_METADATA} keys.`);

  const browser: BrowserSettingsInput = {};
  const width = number(s.width);
  const height = number(s.height);
  const pixels = (n: number | undefined | "bad", field: string) => {
    if (n === "bad" || (n !== undefined && !Number.isInteger(n))) problems.set(field, "must be a whole number of pixels");
  };
  pixels(width, "browser.viewport.width");
  pixels(height, "browser.viewport.height");
  if (width !== undefined && height === undefined) problems.set("browser.viewport.height", "Give the height too (or neither).");
  if (height !== undefined && width === undefined) problems.set("browser.viewport.width", "Give the width too (or neither).");
  if (typeof width === "number" && typeof height === "number") browser.viewport = { width, height };

  if (s.userAgent.trim()) browser.userAgent = s.userAgent.trim();
  if (s.locale.trim()) browser.locale = s.locale.trim();
  if (s.timezone.trim()) browser.timezone = s.timezone.trim();

  const latitude = number(s.latitude);
  const longitude = number(s.longitude);
  const accuracy = number(s.accuracy);
  for (const [n, field] of [
    [latitude, "latitude"],
    [longitude, "longitude"],
    [accuracy, "accuracy"],
  ] as const) {
    if (n === "bad") problems.set(`browser.geolocation.${field}`, "must be a number");
  }
  if (latitude !== undefined && longitude === undefined) problems.set("browser.geolocation.longitude", "Give the longitude too (or neither).");
  if (longitude !== undefined && latitude === undefined) problems.set("browser.geolocation.latitude", "Give the latitude too (or neither).");
  if (accuracy !== undefined && latitude === undefined && longitude === undefined)
    problems.set("browser.geolocation.latitude", "Give a position for this accuracy.");
  if (typeof latitude === "number" && typeof longitude === "number") {
    browser.geolocation = { latitude, longitude, ...(typeof accuracy === "number" ? { accuracy } : {}) };
  }

  return {
    input: {
      metadata: metadata.length > 0 ? metadata : null,
      browser: Object.keys(browser).length > 0 ? browser : null,
      extensionIds: s.extensionIds.length > 0 ? s.extensionIds : null,
    },
    problems,
  };
}

/** How many options are set, for the closed disclosure's summary. */
export function advancedCount(input: AdvancedInput): number {
  const b = input.browser ?? {};
  return (input.metadata?.length ?? 0) + Object.keys(b).length + (input.extensionIds?.length ?? 0);
}

/** The server's fields the Advanced part shows next to its own controls. */
export function isAdvancedField(field: string): boolean {
  return field === "metadata" || field.startsWith("metadata.") || field.startsWith("browser") || field.startsWith("extension_ids");
}

/** Chromium's time zones (ICU's), for the time zone's suggestions; UTC first, as the usual choice. */
export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
}

/** A few common locales and the browser's own, for the locale's suggestions. */
export function localeSuggestions(): string[] {
  const common = ["en-US", "en-GB", "de-DE", "de-CH", "fr-FR", "fr-CH", "it-IT", "es-ES", "nl-NL", "pt-BR", "ja-JP", "zh-CN"];
  return [...new Set([...navigator.languages.filter((l) => l.includes("-")), ...common])];
}
