import nodemailer from "nodemailer";
import type { Config } from "./config.ts";
import type { Logger } from "./logger.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Outgoing mail. `send` never waits for the mail server and never throws: callers answer at once
 * (so a sign-in request takes as long whether or not a mail goes out), and a failure is logged
 * without the mail's body, which may hold a sign-in link.
 */
export interface Mailer {
  readonly kind: "smtp" | "log";
  send(mail: Mail): void;
  /** Resolves when every mail handed over so far is delivered or has failed. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** SMTP when a host is configured; otherwise the development mailer, which writes each mail to the log. */
export function createMailer(config: Config, log: Logger): Mailer {
  return config.mail.smtp.host ? smtpMailer(config, log) : logMailer(log);
}

function tracked(send: (mail: Mail) => Promise<void>, log: Logger) {
  const inFlight = new Set<Promise<void>>();
  return {
    send(mail: Mail): void {
      const p = send(mail)
        .catch((err: unknown) => {
          // The recipient's domain only: the address is personal data and the body may hold a link.
          log.error(
            { err: { message: (err as Error)?.message, code: (err as { code?: unknown })?.code }, toDomain: mail.to.split("@")[1] },
            "mail could not be sent",
          );
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

function smtpMailer(config: Config, log: Logger): Mailer {
  const { host, port, user, password, tls } = config.mail.smtp;
  const transport = nodemailer.createTransport({
    host,
    port,
    secure: tls === "implicit",
    requireTLS: tls === "starttls",
    ignoreTLS: tls === "none",
    ...(user && password ? { auth: { user, pass: password } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const queue = tracked(async (mail) => {
    await transport.sendMail({ from: config.mail.from, to: mail.to, subject: mail.subject, text: mail.text });
  }, log);
  return {
    kind: "smtp",
    send: queue.send,
    flush: queue.flush,
    async close() {
      await queue.flush();
      transport.close();
    },
  };
}

function logMailer(log: Logger): Mailer {
  const queue = tracked(async (mail) => {
    // Deliberate: without SMTP (the embedded default) the log is the only way to receive a link.
    log.warn(
      { developmentMail: { to: mail.to, subject: mail.subject, text: mail.text } },
      "DEVELOPMENT MAIL (no SMTP server configured; VESSEL_SMTP_HOST sends real mail)",
    );
  }, log);
  return { kind: "log", send: queue.send, flush: queue.flush, close: queue.flush };
}
