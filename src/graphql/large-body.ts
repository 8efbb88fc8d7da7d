import type { IncomingMessage } from "node:http";
import type { Request, Response } from "express";
import { AppError } from "../errors.ts";
import { ANONYMOUS_BODY_LIMIT, BODY_CAP, declaredLength, tooLarge } from "../body-limits.ts";
import { parseJsonOffLoop } from "./json-thread.ts";

/** Bodies up to this size Yoga reads and parses itself, inline: cheaper than a trip to the thread. */
export const INLINE_BODY_BYTES = 256 * 1024;
/** The most a GraphQL request body may hold (a profile's storage state or a small upload as base64 fit). */
export const GRAPHQL_BODY_LIMIT = 32 * 1024 * 1024;
/**
 * The most JSON values (strings, numbers, objects…) a large body may hold. Taking a parsed body into
 * the event loop costs per value, not per byte: 2.2 million short strings (23 MB) took ~2 s to copy
 * across, one 23 MB string a few ms. 200,000 values cost the loop ~0.1 s at worst under load.
 */
export const GRAPHQL_BODY_MAX_VALUES = 200_000;

/**
 * A large GraphQL body (over INLINE_BODY_BYTES, or of unknown length) is taken in hand before Yoga:
 * its caller is authenticated first (`authenticate`: a false credential costs no read), then the body
 * is read within GRAPHQL_BODY_LIMIT and parsed as JSON in the JSON thread, and handed to Yoga as
 * `req.body`, which Yoga then uses as the parsed request (@whatwg-node/server). Anonymous callers
 * never get here with such a body (body-limits.ts).
 */
export async function takeLargeBody(
  req: Request,
  res: Response,
  authenticate: (req: IncomingMessage) => Promise<{ services: { principal: unknown } }>,
): Promise<void> {
  if (req.method !== "POST") return;
  const length = declaredLength(req);
  if (length <= INLINE_BODY_BYTES) return;
  if (res.locals[BODY_CAP] !== undefined) {
    // No credentials, a body of unknown length (body-limits.ts refused a larger declared one): small enough to parse here.
    if (!req.is("application/json")) throw new AppError("unsupported-media-type", "Send the GraphQL request as JSON (Content-Type: application/json).");
    const body = await readWithin(req, res, ANONYMOUS_BODY_LIMIT);
    (req as Request & { body: unknown }).body = parseSmall(body);
    return;
  }
  const context = await authenticate(req);
  if (!context.services.principal) throw tooLarge(res, "A GraphQL request without valid credentials may carry at most 65536 bytes of body.");
  if (length > GRAPHQL_BODY_LIMIT && Number.isFinite(length)) throw tooLarge(res, `A GraphQL request body may hold at most ${GRAPHQL_BODY_LIMIT} bytes.`);
  if (!req.is("application/json")) throw new AppError("unsupported-media-type", "Send a large GraphQL request as JSON (Content-Type: application/json).");
  const body = await readWithin(req, res, GRAPHQL_BODY_LIMIT);
  const parsed = await parseJsonOffLoop(body, GRAPHQL_BODY_MAX_VALUES);
  if ("values" in parsed)
    throw tooLarge(res, `A GraphQL request body may hold at most ${GRAPHQL_BODY_MAX_VALUES} JSON values; this one holds ${parsed.values}.`);
  if (!("value" in parsed) || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    throw new AppError("malformed-json", "The request body is not a JSON object (a GraphQL request).");
  }
  (req as Request & { body: unknown }).body = parsed.value;
}

function parseSmall(body: Buffer): object {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new AppError("malformed-json", "The request body is not a JSON object (a GraphQL request).");
  return value;
}

function readWithin(req: IncomingMessage, res: Response, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("aborted", onError);
      if (err) {
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return done(tooLarge(res, `A GraphQL request body may hold at most ${limit} bytes.`));
      chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = () => done(new AppError("malformed-request", "The request body ended early."));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("aborted", onError);
  });
}
