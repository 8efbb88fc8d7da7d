import { useEffect, useRef, useState, type FormEvent } from "react";
import { ExchangeSignInDocument, MeDocument, RequestSignInDocument } from "@gql/graphql.ts";
import { ApiError, accessExpiresAt, asApiError, request } from "../lib/api.ts";
import { pkcePair } from "../lib/browser.ts";
import { useTitle } from "../lib/hooks.ts";
import { navigate, useLocation } from "../lib/router.tsx";
import { Button, ErrorNotice, Field, Spinner } from "../components/ui.tsx";
import { Logo, MailIcon } from "../components/icons.tsx";

/**
 * Magic-link sign-in with PKCE. This tab keeps the code verifier (sessionStorage) and asks for a
 * link; the link opens /dashboard/sign-in?token=…, which exchanges the token with the verifier. A link
 * opened in another tab of the same browser hands its token to the tab that asked (BroadcastChannel,
 * same origin only), which signs in for both: the cookies are the browser's.
 */
const PENDING = "vessel.signIn";
const channelName = "vessel-sign-in";

interface Pending {
  verifier: string;
  email: string;
  at: number;
}

function pending(): Pending | null {
  try {
    const p = JSON.parse(sessionStorage.getItem(PENDING) ?? "null") as Pending | null;
    // A link works 60 seconds; a verifier older than 15 minutes has nothing left to pair with.
    return p && Date.now() - p.at < 15 * 60_000 ? p : null;
  } catch {
    return null;
  }
}

type Message = { type: "token"; token: string } | { type: "signed-in"; redirectTo: string | null } | { type: "failed"; message: string };

/** Where to go once signed in: a path on this site only. */
function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/dashboard") && !next.startsWith("//") ? next : "/dashboard/";
}

async function exchange(token: string, verifier: string): Promise<string | null> {
  const data = await request(ExchangeSignInDocument, { token, codeVerifier: verifier }, { signedIn: false });
  accessExpiresAt(data.exchangeSignIn.accessTokenExpiresAt);
  return data.exchangeSignIn.redirectTo ?? null;
}

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
        {token ? <CompleteSignIn token={token} onRestart={() => setToken(null)} /> : <AskForLink next={search.get("next")} ended={search.get("ended") === "1"} />}
      </main>
      <p className="auth-foot">Self-hosted browser sessions. Sign-up is by invitation.</p>
    </div>
  );
}

function AskForLink({ next, ended }: { next: string | null; ended: boolean }) {
  const [email, setEmail] = useState(() => pending()?.email ?? "");
  const [sent, setSent] = useState<{ email: string; seconds: number } | null>(null);
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
      setSent({ email: address, seconds: data.requestSignIn.linkLifetimeSeconds });
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
          If <strong>{sent.email}</strong> may sign in, a sign-in link is on its way. Open it in this browser within{" "}
          {sent.seconds} seconds; it works once.
        </p>
        <p className="auth-text muted" role="status">
          <Spinner /> Waiting for you to open the link…
        </p>
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

/** Module-wide, so a re-render (or React's development double effects) never exchanges a token twice. */
const exchanged = new Map<string, Promise<string | null>>();

function CompleteSignIn({ token, onRestart }: { token: string; onRestart: () => void }) {
  const [failure, setFailure] = useState<{ title: string; message: string } | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    // The token should not stay in the address bar (history, screenshots).
    history.replaceState(null, "", "/dashboard/sign-in");
    const p = pending();
    if (p) {
      sessionStorage.removeItem(PENDING);
      let run = exchanged.get(token);
      if (!run) {
        run = exchange(token, p.verifier);
        exchanged.set(token, run);
      }
      run.then(
        (redirectTo) => {
          if (typeof BroadcastChannel !== "undefined") {
            const channel = new BroadcastChannel(channelName);
            channel.postMessage({ type: "signed-in", redirectTo } satisfies Message);
            channel.close();
          }
          navigate(safeNext(redirectTo), { replace: true });
        },
        (err: unknown) => {
          const e = asApiError(err);
          setFailure({
            title: e.code === "UNAUTHENTICATED" ? "This link no longer works" : e.title,
            message:
              e.code === "UNAUTHENTICATED"
                ? "Sign-in links work once, for 60 seconds, in the browser that asked for them. This one has expired or was already used."
                : e.message,
          });
        },
      );
      return;
    }
    // No verifier in this tab: the tab that asked for the link may still be open.
    if (typeof BroadcastChannel === "undefined") return setFailure(elsewhere);
    const channel = new BroadcastChannel(channelName);
    const timer = setTimeout(() => {
      channel.close();
      setFailure(elsewhere);
    }, 2500);
    channel.onmessage = (e: MessageEvent<Message>) => {
      if (e.data.type === "signed-in") {
        clearTimeout(timer);
        channel.close();
        navigate(safeNext(e.data.redirectTo), { replace: true });
      } else if (e.data.type === "failed") {
        clearTimeout(timer);
        channel.close();
        setFailure({ title: "This link no longer works", message: e.data.message });
      }
    };
    channel.postMessage({ type: "token", token } satisfies Message);
  }, [token]);

  if (!failure) {
    return (
      <section className="auth-section" aria-live="polite">
        <h1 className="auth-title" tabIndex={-1}>
          Signing you in…
        </h1>
        <p className="auth-text muted">
          <Spinner /> Checking your link.
        </p>
      </section>
    );
  }
  return (
    <section className="auth-section" role="alert">
      <h1 className="auth-title" tabIndex={-1}>
        {failure.title}
      </h1>
      <p className="auth-text">{failure.message}</p>
      <div className="auth-actions">
        <Button variant="primary" onClick={onRestart}>
          Send a new link
        </Button>
      </div>
    </section>
  );
}

const elsewhere = {
  title: "Open the link where you asked for it",
  message:
    "For your safety, a sign-in link only works in the browser that asked for it, while that tab is open. Ask for a new link here, then open it in this browser.",
};
