import { randomBytes, createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { ulid } from "ulid";
import type { AppOptions } from "../../src/app.ts";
import type { Role } from "../../src/generated/prisma/client.ts";
import { startTestApp, type TestApp } from "./app.ts";

/** What the loopback SMTP server received. */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

export interface MailSink {
  host: string;
  port: number;
  user: string;
  password: string;
  received: ReceivedMail[];
  /** Holds every message until the returned function is called (shows the app does not wait for the mail server). */
  hold(): () => void;
  /** Messages whose data arrived but are held. */
  held: number;
  /** Resolves with the first mail to `address` (optionally matching `subject`) that arrives, or fails after `ms`. */
  waitFor(address: string, subject?: RegExp, ms?: number): Promise<ReceivedMail>;
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  return body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}: *(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const qp = /quoted-printable/i.test(header("Content-Transfer-Encoding"));
  return { to, subject: header("Subject"), text: qp ? decodeQuotedPrintable(body) : body };
}

/** A real SMTP server on loopback (the `smtp-server` package) that requires the configured login. */
export async function startMailSink(): Promise<MailSink> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let gate: Promise<void> = Promise.resolve();
  const sink: Partial<MailSink> = { user: "vessel", password: `pw-${randomBytes(6).toString("hex")}`, received, held: 0 };
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === sink.user && auth.password === sink.password) cb(null, { user: auth.username });
      else cb(new Error("bad login"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        sink.held!++;
        void gate.then(() => {
          sink.held!--;
          received.push(
            parseMail(
              Buffer.concat(chunks).toString("utf8"),
              session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            ),
          );
          for (const w of waiters) w();
          cb();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  const to = (address: string) => received.filter((m) => m.to.includes(address.toLowerCase()));
  return Object.assign(sink, {
    host: "127.0.0.1",
    port,
    to,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => {
        release();
        gate = Promise.resolve();
      };
    },
    waitFor(address: string, subject?: RegExp, ms = 5000): Promise<ReceivedMail> {
      const seen = to(address).length;
      return new Promise<ReceivedMail>((resolve, reject) => {
        const check = () => {
          const mail = to(address)
            .slice(seen)
            .find((m) => !subject || subject.test(m.subject));
          if (!mail) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${address} within ${ms} ms`));
        }, ms);
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as MailSink;
}

/** A movable clock for `startTestApp({ now })`. */
export function testClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
  };
}

export interface DashboardApp extends TestApp {
  mail: MailSink;
}

/**
 * An app with the real dashboard sign-in (no fixture users) mailing through a loopback SMTP server
 * with a login. `admins` are the bootstrap admins.
 */
export async function startDashboardApp(opts: AppOptions & { env?: Record<string, string>; admins?: string[] } = {}): Promise<DashboardApp> {
  const mail = await startMailSink();
  const { env, admins, ...rest } = opts;
  const t = await startTestApp({
    signInLimits: { perClientPerHour: 10_000, perAddressPerHour: 100 },
    ...rest,
    users: undefined,
    env: {
      VESSEL_SMTP_HOST: mail.host,
      VESSEL_SMTP_PORT: String(mail.port),
      VESSEL_SMTP_TLS: "none",
      VESSEL_SMTP_USER: mail.user,
      VESSEL_SMTP_PASSWORD: mail.password,
      ...(admins ? { VESSEL_BOOTSTRAP_ADMIN_EMAILS: admins.join(",") } : {}),
      ...env,
    },
  });
  const stopApp = t.stop;
  return Object.assign(t, {
    mail,
    async stop() {
      await stopApp();
      await mail.close();
    },
  });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Cookies as a browser keeps them: by name, sent to the paths they were set for. */
export class CookieJar {
  readonly cookies = new Map<string, { value: string; path: string }>();

  /** Takes the Set-Cookie headers of a response; Max-Age=0 deletes. */
  take(res: Response): string[] {
    const set = res.headers.getSetCookie();
    for (const line of set) {
      const [pair = "", ...attrs] = line.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? "/";
      const maxAge = attrs.find((a) => /^max-age=/i.test(a));
      if (maxAge && Number(maxAge.slice(8)) <= 0) this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
    return set;
  }

  header(path = "/graphql"): string {
    return [...this.cookies]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`) || c.path === "/")
      .map(([name, c]) => `${name}=${c.value}`)
      .join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  clone(): CookieJar {
    const jar = new CookieJar();
    for (const [k, v] of this.cookies) jar.cookies.set(k, { ...v });
    return jar;
  }
}

export interface GqlResult<T = Record<string, unknown>> {
  res: Response;
  status: number;
  data: T | null | undefined;
  errors: Array<{ message: string; extensions?: { code?: string; status?: number } }> | undefined;
}

/** A GraphQL call as the dashboard makes it: JSON, same-origin, with the jar's cookies (updated from the answer). */
export async function gql<T = Record<string, unknown>>(
  t: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  opts: { jar?: CookieJar; headers?: Record<string, string> } = {},
): Promise<GqlResult<T>> {
  const headers: Record<string, string> = { "content-type": "application/json", "sec-fetch-site": "same-origin", ...opts.headers };
  const cookie = opts.jar?.header("/graphql");
  if (cookie && !headers.cookie) headers.cookie = cookie;
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  opts.jar?.take(res);
  const body = (await res.json()) as { data?: T | null; errors?: GqlResult["errors"] };
  return { res, status: res.status, data: body.data, errors: body.errors };
}

export const REQUEST_SIGN_IN = `mutation ($email: String!, $codeChallenge: String!, $codeChallengeMethod: String, $redirectTo: String) {
  requestSignIn(email: $email, codeChallenge: $codeChallenge, codeChallengeMethod: $codeChallengeMethod, redirectTo: $redirectTo) { linkLifetimeSeconds }
}`;
export const EXCHANGE_SIGN_IN = `mutation ($token: String!, $codeVerifier: String!) {
  exchangeSignIn(token: $token, codeVerifier: $codeVerifier) { accessTokenExpiresAt redirectTo me { id email organizationAdmin workspaces { slug role } } }
}`;

/** The one-time token of the sign-in link in a mail. */
export function linkToken(mail: ReceivedMail): string {
  const m = /\/dashboard\/sign-in\?token=([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!m) throw new Error(`no sign-in link in: ${mail.text}`);
  return m[1]!;
}

/** Asks for a link for `email` and returns its token (from the real mail) and the verifier. */
export async function requestLink(t: DashboardApp, email: string, extra: Record<string, unknown> = {}): Promise<{ token: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const waiting = t.mail.waitFor(email, /sign-in link/);
  const r = await gql(t, REQUEST_SIGN_IN, { email, codeChallenge: challenge, ...extra });
  if (r.errors) throw new Error(`requestSignIn: ${JSON.stringify(r.errors)}`);
  return { token: linkToken(await waiting), verifier };
}

export interface SignedInUser {
  userId: string;
  email: string;
  jar: CookieJar;
  /** The access token (the access cookie's value), for `Authorization: Bearer`. */
  access: string;
  bearer: { authorization: string };
  /** Cookie header for REST calls (the access cookie only, as a browser would send it there). */
  cookie: string;
}

/** Signs `email` in through the real flow: link by mail, exchange with the verifier. */
export async function signIn(t: DashboardApp, email: string): Promise<SignedInUser> {
  const { token, verifier } = await requestLink(t, email);
  const jar = new CookieJar();
  const r = await gql<{ exchangeSignIn: { me: { id: string } } }>(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar });
  if (!r.data?.exchangeSignIn) throw new Error(`exchangeSignIn: ${JSON.stringify(r.errors)}`);
  const policy = t.app.deps.dashboard.cookies;
  const access = jar.get(policy.access)!;
  return {
    userId: r.data.exchangeSignIn.me.id,
    email,
    jar,
    access,
    bearer: { authorization: `Bearer ${access}` },
    cookie: `${policy.access}=${access}`,
  };
}

let counter = 0;
/** A fresh address. */
export function address(name = "user"): string {
  return `${name}-${ulid().toLowerCase()}-${counter++}@example.test`;
}

/** A member with a role, made directly in the database (an existing member may sign in). */
export async function addMember(t: TestApp, workspaceId: string, role: Role, email = address(role.toLowerCase())): Promise<string> {
  const id = ulid();
  await t.app.deps.db.prisma.user.create({ data: { id, email } });
  await t.app.deps.db.prisma.membership.create({ data: { workspaceId, userId: id, role } });
  return email;
}
