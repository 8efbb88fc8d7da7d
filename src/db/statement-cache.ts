import type { PGlite } from "@electric-sql/pglite";

/**
 * Named prepared statements for the embedded database, under PGlite's own query path.
 *
 * PGlite runs every parameterised query as an unnamed statement: Parse, Describe, Bind, Describe,
 * Execute, Sync, each a call into PostgreSQL on this thread. So each query is parsed, analysed and
 * planned again, however often its text repeats. On a session's create (one four-part statement)
 * that was 1.1 ms of Parse and 1.1 ms of planning at Bind out of 4.3 ms (bench, embedded database),
 * and the same on every other request's statements.
 *
 * This keeps the text of each statement it has seen as a named prepared statement: the first time,
 * the Parse is sent with a name; after that the Parse is not sent at all, and the Describe and the
 * Bind of the same exchange name the statement instead of the unnamed one. PostgreSQL then skips the
 * parse, and after five executions uses a generic plan where it costs no more than a custom one (its
 * usual rule for prepared statements). The answers
 * to a statement's Describe (its parameter and row types) never change, so they are kept and given
 * back without the call.
 *
 * It works at the level of single protocol messages, as PGlite's `query` sends them (one message
 * per `execProtocolStream` call); anything else (a simple Query, a batch of messages) goes through
 * untouched. At most `limit` texts are named: past that, new texts run unnamed as before, so
 * statements built with varying text cannot grow the database's memory without bound.
 */

const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
const DESCRIBE = 0x44; // 'D'
const SYNC = 0x53; // 'S'
const STATEMENT = 0x53; // 'S' in a Describe: a statement (not a portal)
/**
 * PostgreSQL's invalid_sql_statement_name: a named statement is gone. Never expected (nothing here
 * deallocates one), but if it happens the kept texts are forgotten and each is prepared again, under
 * a new name, the next time it runs.
 */
const STATEMENT_GONE = "26000";

type Stream = PGlite["execProtocolStream"];
type Answer = Awaited<ReturnType<Stream>>;

interface Prepared {
  name: string;
  /** The answer to its Describe (statement), once seen. */
  described?: Answer;
}

/** The message, when `bytes` holds exactly one (type byte, then its length including itself). */
function single(bytes: Uint8Array): { type: number; body: Buffer } | undefined {
  if (bytes.length < 5) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (view.readInt32BE(1) + 1 !== bytes.length) return undefined;
  return { type: bytes[0]!, body: view.subarray(5) };
}

/** One message of `type` with `parts` as its body. */
function message(type: number, parts: Buffer[]): Uint8Array {
  const length = parts.reduce((n, part) => n + part.length, 4);
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeInt32BE(length, 1);
  return Buffer.concat([head, ...parts]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, "utf8");
/** The end (exclusive, past its NUL) of the C string that starts at `from`. */
const endOf = (body: Buffer, from: number) => body.indexOf(0, from) + 1;

/** Installs the cache on `db` (an open PGlite); `turn` runs before each statement served from it without a call. */
export function cacheStatements(db: PGlite, opts: { limit?: number; turn?: () => Promise<void> } = {}): void {
  const limit = opts.limit ?? 200;
  const down: Stream = db.execProtocolStream.bind(db);
  const byText = new Map<string, Prepared>();
  /** Names are never reused, so a name prepared again cannot collide with one PostgreSQL still holds. */
  let named = 0;
  /** The statement of the exchange under way (from its Parse to its Sync), when it is a named one. */
  let current: Prepared | undefined;

  const forget = (err: unknown) => {
    if ((err as { code?: unknown })?.code === STATEMENT_GONE) byText.clear();
  };

  db.execProtocolStream = async (bytes, options) => {
    const msg = single(bytes);
    if (!msg) return down(bytes, options);
    const { type, body } = msg;
    if (type === PARSE && body[0] === 0) {
      // An unnamed statement: its text and parameter types are what follows the empty name.
      const text = body.toString("latin1", 1);
      const known = byText.get(text);
      if (known) {
        current = known;
        await opts.turn?.();
        return [];
      }
      current = undefined;
      if (byText.size >= limit) return down(bytes, options);
      const prepared: Prepared = { name: `vessel_${++named}` };
      const answer = await down(message(PARSE, [cstring(prepared.name), body.subarray(1)]), options);
      byText.set(text, prepared);
      current = prepared;
      return answer;
    }
    if (current && type === DESCRIBE && body[0] === STATEMENT && body[1] === 0) {
      if (current.described) return [...current.described];
      const prepared = current;
      const answer = await down(message(DESCRIBE, [Buffer.from([STATEMENT]), cstring(prepared.name)]), options);
      prepared.described = answer;
      return [...answer];
    }
    if (current && type === BIND) {
      const portalEnd = endOf(body, 0);
      if (body[portalEnd] === 0) {
        const rest = body.subarray(portalEnd + 1);
        return down(message(BIND, [body.subarray(0, portalEnd), cstring(current.name), rest]), options).catch((err: unknown) => {
          forget(err);
          throw err;
        });
      }
    }
    if (type === SYNC) current = undefined;
    return down(bytes, options);
  };
}
