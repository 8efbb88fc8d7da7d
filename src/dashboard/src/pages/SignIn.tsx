import { useEffect, useState, type FormEvent } from "react";
import { MeDocument, RequestSignInDocument } from "@gql/graphql.ts";
import { ApiError, asApiError, request } from "../lib/api.ts";
import { pkcePair } from "../lib/browser.ts";
import { useTitle } from "../lib/hooks.ts";
import { navigate, useLocation } from "../lib/router.tsx";
import { Button, ErrorNotice, Field, Spinner } from "../components/ui.tsx";
import { Logo, MailIcon } from "../components/icons.tsx";
import { PENDING, channelName, type Pending, pending, type Message, safeNext, exchange } from "./sign-in-link.ts";
import { CompleteSignIn } from "./CompleteSignIn.tsx";

export function SignInPage() {
  const { search } = useLocation();
  // Kept here: the token leaves the address bar as soon as the exchange starts.
  const urlToken = search.get("token");
  const [token, setToken] = useState(urlToken);
  useEffect(() => {
    if (urlToken) setToken(urlToken);
  }, [urlToken]);
  useTitle("Sign in");
  return (
    <div className="auth-page">
      <main className="auth-card" id="main">
        <div className="auth-brand">
          <Logo className="brand-logo" />
          <span>Vessel</span>
        </div>
        {token ? (
          <CompleteSignIn token={token} onRestart={() => setToken(null)} />
        ) : (
          <AskForLink next={search.get("next")} ended={search.get("ended") === "1"} />
        )}
      </main>
      <p className="auth-foot">Self-hosted browser sessions. Sign-up is by invitation.</p>
    </div>
  );
}

function AskForLink({ next, ended }: { next: string | null; ended: boolean }) {
  const [email, setEmail] = useState(() => pending()?.email ?? "");
  const [sent, setSent] = useState<{ email: string; seconds: number; mail: boolean } | null>(null);
  // The link dies after `seconds`: then the page stops waiting and says what to check.
  const [gaveUp, setGaveUp] = useState(false);
  useEffect(() => {
    setGaveUp(false);
    if (!sent) return;
    const t = setTimeout(() => setGaveUp(true), sent.seconds * 1000);
    return () => clearTimeout(t);
  }, [sent]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [emailError, setEmailError] = useState<string | undefined>();
  const [resendIn, setResendIn] = useState(0);

  // Already signed in (a bookmarked sign-in page): straight in.
  useEffect(() => {
    let gone = false;
    request(MeDocument, {}, { signedIn: false })
      .then(() => !gone && navigate(safeNext(next), { replace: true }))
      .catch(() => {});
    return () => {
      gone = true;
    };
  }, [next]);

  // The link may be opened in another tab: that tab passes its token here, where the verifier is.
  useEffect(() => {
    if (!sent || typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(channelName);
    channel.onmessage = async (e: MessageEvent<Message>) => {
      if (e.data.type === "token") {
        const p = pending();
        if (!p) return;
        sessionStorage.removeItem(PENDING);
        try {
          const redirectTo = await exchange(e.data.token, p.verifier);
          channel.postMessage({ type: "signed-in", redirectTo } satisfies Message);
          navigate(safeNext(redirectTo ?? next), { replace: true });
        } catch (err) {
          const message = asApiError(err).message;
          channel.postMessage({ type: "failed", message } satisfies Message);
          setError(asApiError(err));
          setSent(null);
        }
      }
    };
    return () => channel.close();
  }, [sent, next]);

  useEffect(() => {
    if (resendIn <= 0) return;
    const t = setTimeout(() => setResendIn((s) => s - 1), 1000);
    return () => clearTimeout(t);
  }, [resendIn]);

  const send = async (address: string) => {
    setError(undefined);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
      setEmailError("Enter an email address, like ada@example.com.");
      return;
    }
    setEmailError(undefined);
    setBusy(true);
    try {
      const { verifier, challenge } = await pkcePair();
      sessionStorage.setItem(PENDING, JSON.stringify({ verifier, email: address, at: Date.now() } satisfies Pending));
      const data = await request(RequestSignInDocument, { email: address, codeChallenge: challenge, redirectTo: next && safeNext(next) }, { signedIn: false });
      setSent({ email: address, seconds: data.requestSignIn.linkLifetimeSeconds, mail: data.requestSignIn.mailConfigured });
      setResendIn(30);
    } catch (err) {
      setError(err instanceof Error && !(err instanceof ApiError) ? new ApiError(err.message, "INTERNAL_SERVER_ERROR", undefined) : asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send(email.trim());
  };

  if (sent && !sent.mail) return <NoMail onBack={() => setSent(null)} />;

  if (sent) {
    return (
      <section aria-labelledby="check-mail" className="auth-section">
        <div className="auth-icon">
          <MailIcon width="28" height="28" />
        </div>
        <h1 id="check-mail" tabIndex={-1} className="auth-title">
          Check your mail
        </h1>
        <p className="auth-text">
          If <strong>{sent.email}</strong> may sign in, a sign-in link is on its way. Open it in this browser within {sent.seconds} seconds; it works once.
        </p>
        {gaveUp ? (
          <div className="notice notice-info notice-plain sign-in-no-mail" role="status">
            <p>
              <strong>No link?</strong> The one we may have sent has expired. Check that:
            </p>
            <ul>
              <li>the address is the one you were invited with, or an organization admin’s;</li>
              <li>the mail is not in your spam or junk folder;</li>
              <li>
                this server can send mail: its operator sets <code>VESSEL_SMTP_HOST</code>. Without it, links are written to the server’s log, and the first
                start prints a sign-in link on the server’s console.
              </li>
            </ul>
            <p>Then send a new link. For your privacy this page never says whether an address may sign in.</p>
          </div>
        ) : (
          <p className="auth-text muted" role="status">
            <Spinner /> Waiting for you to open the link… (give up after {sent.seconds} seconds)
          </p>
        )}
        <div className="auth-actions">
          <Button onClick={() => void send(sent.email)} disabled={resendIn > 0} pending={busy}>
            {resendIn > 0 ? `Send again in ${resendIn}s` : "Send a new link"}
          </Button>
          <Button variant="ghost" onClick={() => setSent(null)}>
            Use another address
          </Button>
        </div>
      </section>
    );
  }

  return (
    <section aria-labelledby="sign-in-title" className="auth-section">
      <h1 id="sign-in-title" tabIndex={-1} className="auth-title">
        Sign in to Vessel
      </h1>
      <p className="auth-text">We’ll email you a one-time link. No password needed.</p>
      {ended ? (
        <p className="notice notice-info notice-plain" role="status">
          You were signed out. Sign in again to continue.
        </p>
      ) : null}
      <form onSubmit={submit} noValidate className="auth-form">
        <Field id="email" label="Email address" error={emailError}>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="email"
            inputMode="email"
            autoFocus
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? "email-error" : undefined}
            placeholder="you@company.com"
          />
        </Field>
        {error ? <ErrorNotice error={error} compact /> : null}
        <Button type="submit" variant="primary" pending={busy} className="btn-block">
          Email me a sign-in link
        </Button>
      </form>
    </section>
  );
}

/** This server sends no mail (no VESSEL_SMTP_HOST): nothing is on its way, and waiting would be a dead end. */
function NoMail({ onBack }: { onBack: () => void }) {
  return (
    <section aria-labelledby="no-mail" className="auth-section">
      <h1 id="no-mail" tabIndex={-1} className="auth-title">
        This server does not send mail
      </h1>
      <div className="notice notice-info notice-plain sign-in-no-mail" role="status">
        <p>
          No mail is sent to anyone: its operator has not set <code>VESSEL_SMTP_HOST</code>. To get a sign-in link:
        </p>
        <ul>
          <li>
            if you run this server, run <code>npm run sign-in-link</code> in its folder, on its machine: it prints a fresh one-time link for the local
            administrator;
          </li>
          <li>if you were invited, ask the person who invited you for the link the dashboard showed them.</li>
        </ul>
      </div>
      <div className="auth-actions">
        <Button variant="ghost" onClick={onBack}>
          Back
        </Button>
      </div>
    </section>
  );
}
