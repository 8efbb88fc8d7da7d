// The settings of outgoing mail (dashboard sign-in links, invitations): the SMTP server and the sender,
// whose defaults derive from other settings (the TLS mode, the public base URL); src/settings.ts lists
// them in their place among every setting.
import { getPath, type Setting } from "./settings-shape.ts";

export const mailSettings: readonly Setting[] = [
  {
    key: "mail.smtp.host",
    env: "VESSEL_SMTP_HOST",
    kind: "string",
    description: "SMTP server for sign-in links and invitations; unset = mails are written to the server log (development)",
  },
  {
    key: "mail.smtp.tls",
    env: "VESSEL_SMTP_TLS",
    kind: "string",
    description: "`starttls` (upgrade required), `implicit` (TLS from the first byte) or `none` (plain; a relay on the same host only)",
    fallback: () => "starttls",
  },
  {
    key: "mail.smtp.port",
    env: "VESSEL_SMTP_PORT",
    kind: "number",
    description: "SMTP port",
    fallback: (c) => (getPath(c, "mail.smtp.tls") === "implicit" ? 465 : 587),
  },
  { key: "mail.smtp.user", env: "VESSEL_SMTP_USER", kind: "string", description: "SMTP user name; unset = no authentication" },
  { key: "mail.smtp.password", env: "VESSEL_SMTP_PASSWORD", kind: "string", description: "SMTP password" },
  {
    key: "mail.from",
    env: "VESSEL_MAIL_FROM",
    kind: "string",
    description: "Sender of Vessel's mails",
    fallback: (c) => `Vessel <vessel@${mailDomain(c.publicBaseUrl)}>`,
  },
];

/** The host of the public base URL, for the default sender address. */
export function mailDomain(publicBaseUrl: unknown): string {
  try {
    return new URL(String(publicBaseUrl)).hostname || "localhost";
  } catch {
    return "localhost";
  }
}
