/**
 * A token bucket: `burst` at once, refilled at `perSecond`. Caps what one viewer can make us do. Not
 * rate-limiter-flexible: its memory limiter is a fixed window and answers by promise, where each
 * socket message is decided at once, in order (decision 0250).
 */
export class RateLimit {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
