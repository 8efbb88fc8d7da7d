import { useEffect, useRef, useState } from "react";
import { asApiError } from "../lib/api.ts";
import { navigate } from "../lib/router.tsx";
import { Button, Spinner } from "../components/ui.tsx";
import { PENDING, channelName, pending, type Message, safeNext, exchange } from "./sign-in-link.ts";

/** Module-wide, so a re-render (or React's development double effects) never exchanges a token twice. */
export const exchanged = new Map<string, Promise<string | null>>();

export function CompleteSignIn({ token, onRestart }: { token: string; onRestart: () => void }) {
  const [failure, setFailure] = useState<{ title: string; message: string } | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    // A link printed on the server's console carries its verifier in the fragment (console-sign-in.ts).
    const consoleVerifier = new URLSearchParams(location.hash.slice(1)).get("verifier");
    // The token should not stay in the address bar (history, screenshots).
    history.replaceState(null, "", "/dashboard/sign-in");
    const p = pending();
    const verifier = consoleVerifier ?? p?.verifier;
    if (verifier) {
      if (!consoleVerifier) sessionStorage.removeItem(PENDING);
      let run = exchanged.get(token);
      if (!run) {
        run = exchange(token, verifier);
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
                ? consoleVerifier
                  ? "The sign-in link printed on the server's console works once, within 15 minutes. This one has expired or was already used: run `npm run sign-in-link` on the server for a new one, or ask for a mailed link."
                  : "Sign-in links work once, for 60 seconds, in the browser that asked for them. This one has expired or was already used."
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

export const elsewhere = {
  title: "Open the link where you asked for it",
  message:
    "For your safety, a sign-in link only works in the browser that asked for it, while that tab is open. Ask for a new link here, then open it in this browser.",
};
