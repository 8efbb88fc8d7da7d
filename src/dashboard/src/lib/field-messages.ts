import { ApiError } from "./api.ts";

/**
 * The server names a bad field in its own terms: snake_case paths and seconds ("timeout_seconds:
 * Too big: expected number to be <=1800"). A form shows it next to the field, in the field's units
 * ("must be at most 30 minutes"), and only there.
 */

interface Unit {
  /** Appended to numbers: " px", "°", " m", " minutes". */
  suffix: string;
  /** Server value × scale = what the form shows (seconds → minutes: 1/60). */
  scale?: number;
  /** For "must be a whole number …". */
  noun?: string;
}

const units: Record<string, Unit> = {
  timeout_seconds: { suffix: " minutes", scale: 1 / 60 },
  idle_timeout_seconds: { suffix: " minutes", scale: 1 / 60 },
  "browser.viewport.width": { suffix: " px", noun: "pixels" },
  "browser.viewport.height": { suffix: " px", noun: "pixels" },
  "browser.viewport.device_scale_factor": { suffix: "×" },
  "browser.geolocation.latitude": { suffix: "°" },
  "browser.geolocation.longitude": { suffix: "°" },
  "browser.geolocation.accuracy": { suffix: " m" },
};

const strip = (field: string) => field.replace(/^(body|query|input)\./, "");

function bound(n: string, unit: Unit): string {
  const value = Number(n) * (unit.scale ?? 1);
  return `${Number.isInteger(value) ? value : value.toFixed(2).replace(/0+$/, "")}${unit.suffix}`;
}

/** The server's message about `field`, in the units the form shows. */
export function inUnits(field: string, message: string): string {
  const unit = units[field];
  if (!unit) return message;
  if (/whole number|expected int/i.test(message)) return `must be a whole number${unit.noun ? ` of ${unit.noun}` : ""}`;
  const most = /(?:at most|<=?)\s*(-?\d+(?:\.\d+)?)/i.exec(message);
  if (most) return `must be at most ${bound(most[1]!, unit)}`;
  const least = /(?:at least|>=?)\s*(-?\d+(?:\.\d+)?)/i.exec(message);
  if (least) return `must be at least ${bound(least[1]!, unit)}`;
  return message;
}

/** The first message about any of `names` (server paths without their prefix), in the field's units. */
export function fieldMessage(error: ApiError | undefined, ...names: string[]): string | undefined {
  const found = error?.fields.find((f) => names.includes(strip(f.field)));
  return found ? inUnits(strip(found.field), found.message) : undefined;
}

/**
 * What is left of an error for the notice at the foot of a form once its fields show their own
 * messages: null when every problem is shown next to its field (a short pointer is enough then).
 */
export function leftOver(error: ApiError, placed: (field: string) => boolean): ApiError | null {
  if (error.fields.length === 0) return error;
  const rest = error.fields.filter((f) => !placed(strip(f.field)));
  if (rest.length === 0) return null;
  if (rest.length === error.fields.length) return error;
  const first = rest[0]!;
  return new ApiError(`${strip(first.field)}: ${first.message}`, error.code, error.status, rest);
}
