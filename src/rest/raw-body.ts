import express, { type Request, type Response } from "express";
import { AppError } from "../errors.ts";

type Parser = ReturnType<typeof express.raw>;
const parsers = new Map<number, Parser>();

/** express.raw for a limit: any content type (the route chose it), no Content-Encoding (a zip is compressed already). */
function rawParser(maxBytes: number): Parser {
  let parser = parsers.get(maxBytes);
  if (!parser) parsers.set(maxBytes, (parser = express.raw({ limit: maxBytes, type: () => true, inflate: false })));
  return parser;
}

/** body-parser's error (it carries a `type`) → the problem this route has always answered. */
function problemOf(err: unknown, maxBytes: number): AppError {
  switch ((err as { type?: string }).type) {
    case "entity.too.large":
      return new AppError("payload-too-large", `The body may hold at most ${maxBytes} bytes.`);
    case "encoding.unsupported":
      return new AppError("unsupported-media-type", "Send the zip as it is, without a Content-Encoding.");
    default:
      return new AppError("validation-failed", "The body did not arrive whole.");
  }
}

/**
 * A binary request body (a zip), read whole by express.raw up to `maxBytes`: past it 413. A declared
 * length past it is refused here, before a byte is read: body-parser would first read the whole body
 * (to throw it away) and only then answer.
 */
export function readRawBody(req: Request, res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(problemOf({ type: "entity.too.large" }, maxBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    // body-parser answers a chunked body past its limit only once the client ends it; the 413 goes
    // out as soon as the limit is passed (body-parser still reads the rest and throws it away).
    let seen = 0;
    let settled = false;
    const watch = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= maxBytes) return;
      req.off("data", watch);
      reject(problemOf({ type: "entity.too.large" }, maxBytes));
    };
    rawParser(maxBytes)(req, res, (err?: unknown) => {
      settled = true;
      req.off("data", watch);
      if (err) return reject(problemOf(err, maxBytes));
      const body: unknown = req.body;
      resolve(Buffer.isBuffer(body) ? body : Buffer.alloc(0));
    });
    // Added in the same tick as body-parser's own listener, so both see every chunk.
    if (!settled) req.on("data", watch);
  });
}
