import { useCallback, useEffect, useRef, useState } from "react";
import type { TypedDocumentString } from "@gql/graphql.ts";
import { ApiError, asApiError, request } from "./api.ts";

/**
 * Answers already seen, by operation and variables: a page visited again shows them at once while
 * it reads them again (stale while revalidate).
 */
const cache = new Map<string, unknown>();

export function clearCache(): void {
  cache.clear();
}

export interface Query<R> {
  data: R | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Reads again (keeps showing the current data meanwhile). */
  reload: () => Promise<void>;
  /** Replaces the data locally (after a mutation or a live update). */
  set: (update: (prev: R | undefined) => R | undefined) => void;
}

export function useQuery<R, V>(doc: TypedDocumentString<R, V>, variables: V, opts: { skip?: boolean } = {}): Query<R> {
  const key = `${doc.toString()}\n${JSON.stringify(variables ?? {})}`;
  const [state, setState] = useState<{ key: string; data: R | undefined; error: ApiError | undefined; loading: boolean }>(() => ({
    key,
    data: cache.get(key) as R | undefined,
    error: undefined,
    loading: !opts.skip,
  }));
  const latest = useRef(key);
  latest.current = key;
  const vars = useRef(variables);
  vars.current = variables;

  const load = useCallback(async () => {
    const k = key;
    setState((s) => ({ key: k, data: s.key === k ? s.data : (cache.get(k) as R | undefined), error: undefined, loading: true }));
    try {
      const data = await request(doc, vars.current);
      cache.set(k, data);
      if (latest.current === k) setState({ key: k, data, error: undefined, loading: false });
    } catch (err) {
      if (latest.current === k) setState((s) => ({ ...s, key: k, error: asApiError(err), loading: false }));
    }
  }, [key]);

  useEffect(() => {
    if (!opts.skip) void load();
  }, [load, opts.skip]);

  const set = useCallback(
    (update: (prev: R | undefined) => R | undefined) =>
      setState((s) => {
        const data = update(s.data);
        if (data !== undefined) cache.set(s.key, data);
        return { ...s, data };
      }),
    [],
  );

  const current = state.key === key ? state : { key, data: cache.get(key) as R | undefined, error: undefined, loading: !opts.skip };
  return { data: current.data, error: current.error, loading: current.loading, reload: load, set };
}

/** A mutation with its pending state and last error, for forms and buttons. */
export function useMutation<R, V>(doc: TypedDocumentString<R, V>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = useCallback(
    async (variables: V): Promise<R | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await request(doc, variables);
      } catch (err) {
        setError(asApiError(err));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [doc],
  );
  return { run, pending, error, reset: () => setError(undefined) };
}

/** The current time, updated every `ms` (relative times, countdowns). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

/** Sets the document title while a page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Vessel` : "Vessel";
  }, [title]);
}
