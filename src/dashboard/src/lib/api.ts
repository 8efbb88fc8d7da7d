import type { TypedDocumentString } from "@gql/graphql.ts";
import { RefreshSignInDocument } from "@gql/graphql.ts";

/** One field the server found wrong (validation problems list them). */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A failed call, readable by people: the server's problem code (`NOT_FOUND`, `LAST_OWNER`…), its
 * message, and the fields it named. `NETWORK` when the server could not be reached at all.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number | undefined,
    readonly fields: FieldProblem[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }

  get title(): string {
    return titles[this.code] ?? "Something went wrong";
  }
}

const titles: Record<string, string> = {
  NETWORK: "Cannot reach Vessel",
  UNAUTHENTICATED: "You are signed out",
  FORBIDDEN: "Permission denied",
  NOT_FOUND: "Not found",
  VALIDATION_FAILED: "Please check the form",
  CONFLICT: "That conflicts with the current state",
  LAST_OWNER: "A workspace needs an owner",
  RATE_LIMITED: "Too many requests",
  UNKNOWN_REGION: "Unknown region",
  INSUFFICIENT_CAPACITY: "No browser is free right now",
  WORKSPACE_SESSION_LIMIT: "This workspace runs as many sessions as it may",
  SERVICE_UNAVAILABLE: "Vessel is unavailable",
  PROFILE_TOO_LARGE: "Profile too large",
  PROFILE_UNREADABLE: "Profile unreadable",
  PAYLOAD_TOO_LARGE: "Too large",
  GONE: "The session has ended",
  EXTENSIONS_UNSUPPORTED: "Extensions need full Chromium",
  INVALID_EXTENSION: "Not an extension Vessel can load",
  INVALID_NETWORK_RULE: "A network rule is not valid",
  IDEMPOTENCY_KEY_IN_USE: "Still working on it",
  INTERNAL_SERVER_ERROR: "Something went wrong",
  GRAPHQL_VALIDATION_FAILED: "The dashboard sent a request the server does not understand",
  WEBHOOK_ADDRESS_REFUSED: "Vessel does not send to this address",
};

interface GraphQLErrorShape {
  message: string;
  extensions?: { code?: string; status?: number; errors?: FieldProblem[] };
}

export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(err instanceof Error ? err.message : String(err), "INTERNAL_SERVER_ERROR", undefined);
}

function errorOf(e: GraphQLErrorShape, httpStatus: number): ApiError {
  const code = e.extensions?.code ?? (httpStatus >= 500 ? "INTERNAL_SERVER_ERROR" : "GRAPHQL_VALIDATION_FAILED");
  return new ApiError(e.message, code, e.extensions?.status ?? httpStatus, e.extensions?.errors ?? []);
}

async function post<R, V>(doc: TypedDocumentString<R, V>, variables: V | undefined): Promise<R> {
  let res: Response;
  try {
    res = await fetch("/graphql", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json, application/json" },
      body: JSON.stringify({ query: doc.toString(), variables: variables ?? {} }),
    });
  } catch {
    throw new ApiError("Check your connection; the dashboard will work again once Vessel answers.", "NETWORK", undefined);
  }
  let body: { data?: R | null; errors?: GraphQLErrorShape[] };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new ApiError(
      `The server answered ${res.status} ${res.statusText} without a readable body.`,
      res.status >= 500 ? "SERVICE_UNAVAILABLE" : "INTERNAL_SERVER_ERROR",
      res.status,
    );
  }
  const first = body.errors?.[0];
  if (first) throw errorOf(first, res.status);
  if (!body.data) throw new ApiError("The server sent an empty answer.", "INTERNAL_SERVER_ERROR", res.status);
  return body.data;
}

// -------------------------------------------------------------------------------------------------
// The access cookie lives an hour; the refresh cookie rotates it. Refreshes are shared by every
// tab (Web Locks where available): a tab that finds another one just refreshed does not refresh again.

const EXPIRY_KEY = "vessel.accessExpiresAt";
let refreshing: Promise<boolean> | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const signedOutListeners = new Set<(wasSignedIn: boolean) => void>();

/**
 * Called when there is no sign-in (refresh refused): the app goes to the sign-in page.
 * `wasSignedIn`: this browser was signed in until now (its sign-in ended), rather than never.
 */
export function onSignedOut(listener: (wasSignedIn: boolean) => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

function storedExpiry(): number {
  return Number(localStorage.getItem(EXPIRY_KEY) ?? 0);
}

/** Remembers when the access cookie runs out and refreshes it 5 minutes before. */
export function accessExpiresAt(iso: string): void {
  localStorage.setItem(EXPIRY_KEY, String(Date.parse(iso)));
  scheduleRefresh();
}

export function forgetSignIn(): void {
  localStorage.removeItem(EXPIRY_KEY);
  clearTimeout(timer);
}

export function scheduleRefresh(): void {
  clearTimeout(timer);
  const expiry = storedExpiry();
  if (!expiry) return;
  const wait = Math.max(5_000, expiry - Date.now() - 5 * 60_000);
  timer = setTimeout(() => void refreshAccess(expiry), Math.min(wait, 2 ** 31 - 1));
}

/**
 * Gets a fresh access cookie. `staleExpiry`: the expiry the caller saw fail or near its end; when
 * another tab already moved it on, nothing is done. Resolves false when the sign-in has ended.
 */
export function refreshAccess(staleExpiry = storedExpiry()): Promise<boolean> {
  refreshing ??= (async () => {
    const run = async () => {
      if (storedExpiry() > staleExpiry && storedExpiry() - Date.now() > 60_000) return true;
      try {
        const data = await post(RefreshSignInDocument, {});
        accessExpiresAt(data.refreshSignIn.accessTokenExpiresAt);
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.code === "NETWORK") throw err;
        return false;
      }
    };
    try {
      return navigator.locks ? await navigator.locks.request("vessel-refresh", run) : await run();
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/**
 * Runs one typed operation over HTTP. An expired access cookie is refreshed once, transparently;
 * when the sign-in has ended, listeners of {@link onSignedOut} hear it and the call fails.
 */
export async function request<R, V>(doc: TypedDocumentString<R, V>, variables?: V, opts: { signedIn?: boolean } = {}): Promise<R> {
  const expiry = storedExpiry();
  try {
    return await post(doc, variables);
  } catch (err) {
    if (opts.signedIn === false || !(err instanceof ApiError) || err.code !== "UNAUTHENTICATED") throw err;
    if (await refreshAccess(expiry)) return post(doc, variables);
    const wasSignedIn = storedExpiry() > 0;
    forgetSignIn();
    for (const listener of signedOutListeners) listener(wasSignedIn);
    throw err;
  }
}
