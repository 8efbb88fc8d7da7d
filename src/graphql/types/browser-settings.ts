import type { BrowserSettingsInput as Wire } from "../../services/sessions/browser-settings-input.ts";
import { builder } from "../builder.ts";

// A session's `browser` settings in GraphQL's camelCase; stored and validated in the REST (snake_case) form.

const Viewport = builder.objectRef<NonNullable<Wire["viewport"]>>("BrowserViewport").implement({
  fields: (t) => ({
    width: t.exposeInt("width"),
    height: t.exposeInt("height"),
    deviceScaleFactor: t.float({ nullable: true, resolve: (v) => v.device_scale_factor ?? null }),
    mobile: t.boolean({ nullable: true, resolve: (v) => v.mobile ?? null }),
  }),
});

const Geolocation = builder.objectRef<NonNullable<Wire["geolocation"]>>("Geolocation").implement({
  fields: (t) => ({
    latitude: t.exposeFloat("latitude"),
    longitude: t.exposeFloat("longitude"),
    accuracy: t.float({ nullable: true, resolve: (g) => g.accuracy ?? null }),
  }),
});

export const BrowserSettingsRef = builder.objectRef<Wire>("BrowserSettings").implement({
  description: "Browser settings given at create: they hold in every tab, frame and worker of the session.",
  fields: (t) => ({
    viewport: t.field({ type: Viewport, nullable: true, resolve: (b) => b.viewport ?? null }),
    userAgent: t.string({ nullable: true, resolve: (b) => b.user_agent ?? null }),
    locale: t.string({ nullable: true, resolve: (b) => b.locale ?? null }),
    timezone: t.string({ nullable: true, resolve: (b) => b.timezone ?? null }),
    geolocation: t.field({ type: Geolocation, nullable: true, resolve: (b) => b.geolocation ?? null }),
  }),
});

const ViewportInput = builder.inputType("BrowserViewportInput", {
  fields: (t) => ({
    width: t.int({ required: true }),
    height: t.int({ required: true }),
    deviceScaleFactor: t.float(),
    mobile: t.boolean(),
  }),
});

const GeolocationInput = builder.inputType("GeolocationInput", {
  fields: (t) => ({ latitude: t.float({ required: true }), longitude: t.float({ required: true }), accuracy: t.float() }),
});

export const BrowserSettingsInputRef = builder.inputType("BrowserSettingsInput", {
  description: "Viewport 200–3840 each side, a user agent of at most 512 characters, a BCP 47 locale, an IANA time zone, a position.",
  fields: (t) => ({
    viewport: t.field({ type: ViewportInput }),
    userAgent: t.string(),
    locale: t.string(),
    timezone: t.string(),
    geolocation: t.field({ type: GeolocationInput }),
  }),
});

type GqlInput = {
  viewport?: { width: number; height: number; deviceScaleFactor?: number | null; mobile?: boolean | null } | null;
  userAgent?: string | null;
  locale?: string | null;
  timezone?: string | null;
  geolocation?: { latitude: number; longitude: number; accuracy?: number | null } | null;
};

/** GraphQL's input as the wire form the service validates (nulls dropped). */
export function browserSettingsWire(b: GqlInput | null | undefined): Record<string, unknown> | undefined {
  if (!b) return undefined;
  const v = b.viewport;
  const g = b.geolocation;
  return {
    ...(v ? { viewport: { width: v.width, height: v.height, ...(v.deviceScaleFactor != null ? { device_scale_factor: v.deviceScaleFactor } : {}), ...(v.mobile != null ? { mobile: v.mobile } : {}) } } : {}),
    ...(b.userAgent != null ? { user_agent: b.userAgent } : {}),
    ...(b.locale != null ? { locale: b.locale } : {}),
    ...(b.timezone != null ? { timezone: b.timezone } : {}),
    ...(g ? { geolocation: { latitude: g.latitude, longitude: g.longitude, ...(g.accuracy != null ? { accuracy: g.accuracy } : {}) } } : {}),
  };
}
