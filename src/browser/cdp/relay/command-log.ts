/**
 * The CDP methods one client connection sent, with how long the browser took to answer each
 * (browser/cdp/relay/relay.ts feeds it when the session's logs are on; nothing of it exists otherwise). Only the
 * method's name is kept, never its params. The cost on the relay's path is a Map entry per command
 * and, per message from the browser, a look at its first bytes: an answer starts `{"id":<n>,`.
 */

/**
 * What the session's logs receive: one call per command, once answered (or refused, or left
 * unanswered), or one per run of answers to the same method (`run`: how many, their total and
 * longest time; `durationMs` is then their mean).
 */
export type CommandLogSink = (method: string, at: number, durationMs: number | null, refused: boolean, run?: CommandRun) => void;
export interface CommandRun {
  count: number;
  totalMs: number;
  maxMs: number;
}

/**
 * Answers to the same method within this long of the first become one entry: a client's burst (a
 * scraper's 2,000 Runtime.evaluate in a row) is the first answer's line, then one line with the
 * count of the rest, not 2,000 rows to seal and store, which cost the embedded database's thread
 * more than the relay itself (a third of a pipelined burst's rate; bench/session-logs.ts). The first
 * answer is logged at once: a command just before the session ends must not wait in a run that
 * the end's last write would miss.
 */
const RUN_MS = 250;

/** A connection with more commands than this in flight logs the extra ones without a duration. */
const MAX_IN_FLIGHT = 10_000;
const OPEN_BRACE = 0x7b;
const QUOTE = 0x22;
const I = 0x69;
const D = 0x64;
const COLON = 0x3a;

/** `{"id":123,…` → 123, or -1 when the message is not an answer. */
export function answerId(message: Buffer): number {
  if (
    message.length < 7 ||
    message[0] !== OPEN_BRACE ||
    message[1] !== QUOTE ||
    message[2] !== I ||
    message[3] !== D ||
    message[4] !== QUOTE ||
    message[5] !== COLON
  ) {
    return -1;
  }
  let id = 0;
  let i = 6;
  for (; i < message.length && i < 22; i++) {
    const c = message[i]!;
    if (c < 0x30 || c > 0x39) break;
    id = id * 10 + (c - 0x30);
  }
  return i === 6 ? -1 : id;
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

export class CommandLog {
  readonly #inFlight = new Map<number, { method: string; at: number; started: number }>();
  /** The answers to one method after its first, within RUN_MS of it (`at`: the first of them). */
  #run: ({ method: string; at: number; started: number } & CommandRun) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly sink: CommandLogSink) {}

  /** An answered command: it joins the run of its method, or ends the run and starts its own. */
  #answered(method: string, at: number, ms: number): void {
    const run = this.#run;
    if (run && run.method === method && at - run.started < RUN_MS) {
      if (run.count === 0) run.at = at;
      run.count += 1;
      run.totalMs += ms;
      run.maxMs = Math.max(run.maxMs, ms);
      return;
    }
    this.#flush();
    this.sink(method, at, round3(ms), false);
    // What follows of the same method within RUN_MS is counted into one entry.
    this.#run = { method, at: 0, started: at, count: 0, totalMs: 0, maxMs: 0 };
    // A run is written within RUN_MS even when nothing follows it (live readers see it then).
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, RUN_MS);
  }

  #flush(): void {
    const run = this.#run;
    if (!run) return;
    this.#run = undefined;
    if (run.count === 0) return;
    if (run.count === 1) this.sink(run.method, run.at, round3(run.totalMs), false);
    else this.sink(run.method, run.at, round3(run.totalMs / run.count), false, { count: run.count, totalMs: round3(run.totalMs), maxMs: round3(run.maxMs) });
  }

  /** The client's command went to the browser. */
  sent(id: number, method: string): void {
    if (this.#inFlight.size >= MAX_IN_FLIGHT) return this.#unanswered(method, Date.now());
    const earlier = this.#inFlight.get(id);
    // The same id twice in flight (two targets): the earlier one is logged without its time.
    if (earlier) this.#unanswered(earlier.method, earlier.at);
    this.#inFlight.set(id, { method, at: Date.now(), started: performance.now() });
  }

  /** A message from the browser to the client: if it answers a command, that command is logged. */
  received(message: Buffer): void {
    if (this.#inFlight.size === 0) return;
    const id = answerId(message);
    if (id < 0) return;
    const command = this.#inFlight.get(id);
    if (!command) return;
    this.#inFlight.delete(id);
    this.#answered(command.method, command.at, performance.now() - command.started);
  }

  #unanswered(method: string, at: number): void {
    this.#flush();
    this.sink(method, at, null, false);
  }

  /** Answered by the relay itself (refused by the policy, a target that is gone, Browser.close). */
  answeredHere(method: string, refused: boolean): void {
    this.#flush();
    this.sink(method, Date.now(), 0, refused);
  }

  /** The connection ended: what was never answered is logged without a duration. */
  close(): void {
    this.#flush();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const command of this.#inFlight.values()) this.sink(command.method, command.at, null, false);
    this.#inFlight.clear();
  }
}
