import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppError } from "../../src/errors.ts";
import { readRawBody } from "../../src/rest/raw-body.ts";

/** readRawBody (express.raw underneath) behind a bare Express app: the body's size, or the problem's slug. */
describe("raw request bodies", () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    const app = express();
    app.post("/raw", (req, res) => {
      readRawBody(req, res, 1024).then(
        (body) => res.json({ size: body.length, first: body.subarray(0, 2).toString("latin1") }),
        (err: AppError) => res.status(err.status).json({ slug: err.slug }),
      );
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = (headers: Record<string, string | number>, chunks: Buffer[]) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path: "/raw", method: "POST", agent: false, headers }, (res) => {
        const got: Buffer[] = [];
        res.on("data", (c: Buffer) => got.push(c)).on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(got).toString()) }));
      });
      req.on("error", reject);
      for (const c of chunks) req.write(c);
      req.end();
    });

  it("reads a body up to the limit, declared or chunked, whatever its content type", async () => {
    const zip = Buffer.concat([Buffer.from("PK"), Buffer.alloc(1022)]);
    expect(await send({ "content-type": "application/zip", "content-length": 1024 }, [zip])).toEqual({ status: 200, body: { size: 1024, first: "PK" } });
    expect(await send({ "content-type": "application/octet-stream", "transfer-encoding": "chunked" }, [zip.subarray(0, 500), zip.subarray(500)])).toEqual({
      status: 200,
      body: { size: 1024, first: "PK" },
    });
    expect(await send({ "content-type": "application/zip", "content-length": 0 }, [])).toEqual({ status: 200, body: { size: 0, first: "" } });
  });

  it("answers 413 payload-too-large past the limit, from the declared length or while reading", async () => {
    expect(await send({ "content-type": "application/zip", "content-length": 1025 }, [Buffer.alloc(1025)])).toEqual({
      status: 413,
      body: { slug: "payload-too-large" },
    });
    expect(await send({ "content-type": "application/zip", "transfer-encoding": "chunked" }, [Buffer.alloc(600), Buffer.alloc(600)])).toEqual({
      status: 413,
      body: { slug: "payload-too-large" },
    });
  });

  it("answers 413 as soon as a chunked body passes the limit, not when the client chooses to end it", async () => {
    // A client that keeps sending must not hold its answer (and its socket's attention) until it stops.
    const answer = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: "/raw", method: "POST", agent: false, headers: { "content-type": "application/zip", "transfer-encoding": "chunked" } },
        (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on("error", () => {});
      req.write(Buffer.alloc(600));
      req.write(Buffer.alloc(600)); // past 1024, and the body never ends
      setTimeout(() => {
        req.destroy();
        reject(new Error("no answer while the body was still open"));
      }, 5_000).unref();
    });
    expect(answer).toBe(413);
  });

  it("refuses a Content-Encoding (415): a zip is sent as it is", async () => {
    expect(await send({ "content-type": "application/zip", "content-encoding": "gzip", "content-length": 4 }, [Buffer.from("PK\x03\x04")])).toEqual({
      status: 415,
      body: { slug: "unsupported-media-type" },
    });
  });
});
