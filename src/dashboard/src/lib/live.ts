import { createClient, type Client } from "graphql-ws/client";
import type { TypedDocumentString } from "@gql/graphql.ts";
import { ApiError, refreshAccess } from "./api.ts";

/**
 * One graphql-ws connection for the whole app, opened when the first subscription starts. The
 * sign-in cookie authenticates it (sent with the upgrade; nothing goes in the URL). When the server
 * closes it because the access cookie ran out (4403), the cookie is refreshed and the socket reopens;
 * subscriptions resume by themselves, and pages re-read what they may have missed ({@link onReconnect}).
 */
let client: Client | undefined;
let needsRefresh = false;
/** `idle`: nothing subscribed, so no socket is needed (it closes after a few seconds). */
let state: "idle" | "connecting" | "live" | "offline" = "idle";
let active = 0;
const stateListeners = new Set<(s: typeof state) => void>();
const reconnectListeners = new Set<() => void>();

function setState(next: typeof state) {
  state = next;
  for (const l of stateListeners) l(next);
}

function live(): Client {
  client ??= createClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`,
    lazy: true,
    lazyCloseTimeout: 3_000,
    keepAlive: 25_000,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
    retryWait: async (retries) => {
      await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** retries) * (0.5 + Math.random() / 2)));
    },
    connectionParams: async () => {
      if (needsRefresh) {
        needsRefresh = false;
        await refreshAccess().catch(() => false);
      }
      return {};
    },
    on: {
      connecting: () => setState("connecting"),
      connected: (_socket, _payload, wasRetry) => {
        setState("live");
        if (wasRetry) for (const l of reconnectListeners) l();
      },
      closed: (event) => {
        if ((event as CloseEvent | undefined)?.code === 4403) needsRefresh = true;
        setState(active > 0 ? "offline" : "idle");
      },
    },
  });
  return client;
}

export function connectionState(): typeof state {
  return state;
}

export function onConnectionState(listener: (s: typeof state) => void): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}

/** After the socket came back: whatever happened meanwhile was not delivered. */
export function onReconnect(listener: () => void): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}

/** Starts a typed subscription; returns its stop function. */
export function subscribe<R, V>(
  doc: TypedDocumentString<R, V>,
  variables: V,
  handlers: { next: (data: R) => void; error?: (err: ApiError) => void; complete?: () => void },
): () => void {
  active++;
  let counted = true;
  const done = () => {
    if (!counted) return;
    counted = false;
    active--;
  };
  const stop = live().subscribe<R>(
    { query: doc.toString(), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        const first = result.errors?.[0] as { message: string; extensions?: { code?: string; status?: number } } | undefined;
        if (first) handlers.error?.(new ApiError(first.message, first.extensions?.code ?? "INTERNAL_SERVER_ERROR", first.extensions?.status));
        else if (result.data) handlers.next(result.data as R);
      },
      error: (err) => {
        done();
        const first = Array.isArray(err) ? (err[0] as { message?: string; extensions?: { code?: string } } | undefined) : undefined;
        handlers.error?.(new ApiError(first?.message ?? "The live connection failed.", first?.extensions?.code ?? "NETWORK", undefined));
      },
      complete: () => {
        done();
        handlers.complete?.();
      },
    },
  );
  return () => {
    done();
    stop();
  };
}
