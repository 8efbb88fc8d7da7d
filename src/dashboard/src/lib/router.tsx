import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";

/** The app lives under /dashboard/ on the API server's own origin. */
export const BASE = "/dashboard";

const NAVIGATE = "vessel:navigate";

function subscribeLocation(cb: () => void): () => void {
  window.addEventListener("popstate", cb);
  window.addEventListener(NAVIGATE, cb);
  return () => {
    window.removeEventListener("popstate", cb);
    window.removeEventListener(NAVIGATE, cb);
  };
}

const snapshot = () => location.pathname + location.search;

/** The current path and query (`/dashboard/w/acme/sessions?status=RUNNING`), re-rendering on change. */
export function useLocation(): { path: string; search: URLSearchParams; href: string } {
  const href = useSyncExternalStore(subscribeLocation, snapshot);
  const url = new URL(href, location.origin);
  return { path: url.pathname.replace(/\/+$/, "") || "/", search: url.searchParams, href };
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (opts.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.dispatchEvent(new Event(NAVIGATE));
}

/** Replaces the query string without a new history entry (filters). */
export function setSearch(params: Record<string, string | undefined>): void {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === "") url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  navigate(url.pathname + url.search, { replace: true });
}

/** An ordinary link that the app follows without reloading (modified clicks behave as usual). */
export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const follow = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={follow} {...rest} />;
}

/** Matches `pattern` (`/w/:slug/sessions/:id`) against a path under BASE. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const re = new RegExp(
    `^${BASE}${pattern.replace(/:(\w+)/g, (_m, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}/?$`,
  );
  const m = re.exec(path);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
}
