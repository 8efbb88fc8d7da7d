import { CreateSessionInput } from "../../services/sessions/session-input.ts";
import { builder } from "../builder.ts";
import { zodInputType } from "../zod-input.ts";
import { MetadataEntryInput, metadataObject } from "./metadata.ts";

/**
 * GraphQL's CreateSessionInput, derived from the service's CreateSessionInput (the one declaration
 * of a create's options): a field added there appears here with no edit. The flat fields of the
 * hand-written input this replaced stay, deprecated, for the clients and dashboards that send them.
 */
export const CreateSessionGql = zodInputType(builder, "CreateSessionInput", CreateSessionInput, {
  names: {
    browser: "BrowserSettingsInput",
    "browser.viewport": "BrowserViewportInput",
    "browser.geolocation": "GeolocationInput",
    live_view: "LiveViewInput",
    proxy: "ProxyInput",
  },
  record: { type: MetadataEntryInput, toWire: metadataObject },
  aliases: {
    liveViewInteractive: "liveView.interactive",
    liveViewInstructions: "liveView.instructions",
    proxyServer: "proxy.server",
    proxyUsername: "proxy.username",
    proxyPassword: "proxy.password",
  },
});
