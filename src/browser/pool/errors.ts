/**
 * Why the pool gives a session no browser. Plain errors that say what happened to the browsers; which
 * problem a client is answered with (status, slug, Retry-After) is the transports' to say
 * (kernel/problems.ts browserProblem), so nothing of HTTP lives in the browser layer.
 */
export class BrowserPoolError extends Error {}

/** Every browser of this node is in use; one is likely free again within `retryAfterSeconds`. */
export class PoolFull extends BrowserPoolError {
  constructor(
    readonly capacity: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`All ${capacity} browsers of this node are in use.`);
    this.name = "PoolFull";
  }
}

/** No browser can be had here now: the pool is not running, Chromium is missing, the launch failed, or the pool is closing. */
export class BrowserUnavailable extends BrowserPoolError {
  constructor(message: string) {
    super(message);
    this.name = "BrowserUnavailable";
  }
}

/** The session holds a browser already (a second acquire for it is a fault of the caller). */
export class SessionHasBrowser extends BrowserPoolError {
  constructor(sessionId: string) {
    super(`Session ${sessionId} already has a browser.`);
    this.name = "SessionHasBrowser";
  }
}
