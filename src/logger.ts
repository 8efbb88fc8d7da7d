import { pino, type Logger } from "pino";
import { redactUrl } from "./redaction.ts";
import { escapeText } from "./escape-text.ts";
import { prettyDestination, resolvedLogFormat, type LogFormat } from "./console-log.ts";

export type { Logger };

/** Fields that carry credentials (or addresses with one inside) wherever they appear in a logged object. */
const credentialFields = [
  "secret",
  "password",
  "token",
  "authorization",
  "cookie",
  "masterKey",
  "connectUrl",
  "liveViewUrl",
  "connect_url",
  "live_view_url",
  "codeVerifier",
  "refreshToken",
  "accessToken",
];

/**
 * Credentials must never reach the log: headers that carry them are redacted here once, so no call
 * site has to remember; URLs go through safeUrl (query parameters named like credentials, redaction.ts).
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = "json"): Logger {
  const to = destination ?? (resolvedLogFormat(format) === "pretty" ? prettyDestination() : undefined);
  return pino(
    {
      level,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          'res.headers["set-cookie"]',
          // Whatever object a call site logs, at the top level or one level down.
          ...credentialFields.flatMap((f) => [f, `*.${f}`]),
          "headers.authorization",
          "headers.cookie",
          '*.headers["x-vessel-signature"]',
          '*.headers["set-cookie"]',
        ],
        censor: "[redacted]",
      },
    },
    to,
  );
}

/**
 * A URL path safe to log: query parameters that carry credentials are masked (redaction.ts, the rule
 * sessions' logs use too), and control characters and lone surrogates written escaped (a path is
 * only recorded, never refused: kernel/text.ts).
 */
export function safeUrl(url: string): string {
  return escapeText(redactUrl(url));
}
