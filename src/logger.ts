import { pino, type Logger } from "pino";

export type { Logger };

/**
 * Credentials must never reach the log: headers that carry them and any `token`/`code` query
 * parameter are redacted here once, so no call site has to remember.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          'res.headers["set-cookie"]',
          "*.secret",
          "*.password",
          "*.token",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

/** A URL path safe to log: query parameters that carry credentials are masked. */
export function safeUrl(url: string): string {
  return url.replace(/([?&](?:token|code|key|secret)=)[^&#]*/gi, "$1[redacted]");
}
