// The client's own options (key, address, retries): kept apart from the API's surface in index.ts.

export interface RetryOptions {
  /** Attempts in all, the first included (default 6). */
  maxAttempts?: number;
  /** Never keep retrying past this long since the first attempt (default 60 s). */
  maxElapsedMs?: number;
  /** First backoff; doubles each time, with full jitter (default 250 ms). */
  baseDelayMs?: number;
  /** Longest single backoff (default 10 s). */
  maxDelayMs?: number;
}

export interface VesselOptions {
  /** Default: `VESSEL_API_KEY`. */
  apiKey?: string;
  /** Default: `VESSEL_BASE_URL`, else http://localhost:8080. */
  baseUrl?: string;
  retry?: RetryOptions;
  /** For tests and unusual runtimes. */
  fetch?: typeof fetch;
}
