import type { BrowserSettingsInput as Wire } from "../../services/sessions/browser-settings-input.ts";
import { builder } from "../builder.ts";

// A session's `browser` settings in GraphQL's camelCase, as stored (the REST snake_case form). The input
// (BrowserSettingsInput) is derived from the service's schema: see ./session-input.ts.

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
