import { z } from "zod";
import type { BrowserSettings } from "../../browser/features/browser-settings.ts";

/** A BCP 47 tag as Intl reads it (`fr-CH`, `zh-Hant-TW`); `en_US` and the like are refused. */
function isLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** An IANA zone (`Europe/Zurich`, `UTC`) that ICU knows; offsets and abbreviations are refused. */
function isTimeZone(zone: string): boolean {
  if (!/^(?:[A-Za-z][A-Za-z0-9_+-]*)(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const side = (name: string) =>
  z.number().int(`${name} must be a whole number of CSS pixels`).min(200, `${name} must be at least 200`).max(3840, `${name} must be at most 3840`);

/** `browser` at create (snake_case on the wire): each setting holds in every tab, frame and worker of the session. */
export const BrowserSettingsInput = z
  .strictObject({
    viewport: z
      .strictObject({
        width: side("width"),
        height: side("height"),
        device_scale_factor: z.number().min(0.5).max(4).optional().describe("Device pixels per CSS pixel (default 1)."),
        mobile: z.boolean().optional().describe("Emulate a phone: mobile viewport rules and touch."),
      })
      .optional()
      .describe("The size of every tab (innerWidth × innerHeight), 200–3840 each."),
    user_agent: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
      .optional()
      .describe("navigator.userAgent and the User-Agent header (at most 512 characters)."),
    locale: z
      .string()
      .max(35)
      .refine(isLocale, "must be a BCP 47 language tag such as en-US or fr-CH")
      .optional()
      .describe("navigator.language(s), Accept-Language and Intl's default locale."),
    timezone: z.string().max(64).refine(isTimeZone, "must be an IANA time zone such as Europe/Zurich").optional().describe("Intl's time zone and every Date."),
    geolocation: z
      .strictObject({
        latitude: z.number().min(-90).max(90),
        longitude: z.number().min(-180).max(180),
        accuracy: z.number().min(0).max(100_000).optional().describe("Metres (default 10)."),
      })
      .optional()
      .describe("What navigator.geolocation reports (the permission is granted)."),
  })
  .describe("Browser settings for this session: they hold in every tab, frame and worker it opens, whichever CDP client connects.");

export type BrowserSettingsInput = z.output<typeof BrowserSettingsInput>;

/** The wire form as the browser layer's settings. */
export function toBrowserSettings(b: BrowserSettingsInput): BrowserSettings {
  return {
    ...(b.viewport
      ? {
          viewport: {
            width: b.viewport.width,
            height: b.viewport.height,
            ...(b.viewport.device_scale_factor ? { deviceScaleFactor: b.viewport.device_scale_factor } : {}),
            ...(b.viewport.mobile !== undefined ? { mobile: b.viewport.mobile } : {}),
          },
        }
      : {}),
    ...(b.user_agent ? { userAgent: b.user_agent } : {}),
    ...(b.locale ? { locale: b.locale } : {}),
    ...(b.timezone ? { timezone: b.timezone } : {}),
    ...(b.geolocation ? { geolocation: b.geolocation } : {}),
  };
}
