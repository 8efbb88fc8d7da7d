import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver on loopback for the tests: keeps every request (headers and raw body) and
 * answers each with the next status of its script (then 200). The signature check here is the
 * tests' own, written from the Standard Webhooks text with node:crypto only: never Vessel's code.
 */

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer with, in order, per path; afterwards 200. */
  script(path: string, statuses: number[]): void;
  /** Delay each answer (ms). */
  delayMs: number;
  /** Decides each answer's status when set (after the path's script). */
  answer?: (r: Received) => number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const scripts = new Map<string, number[]>();
  const received: Received[] = [];
  const receiver: Receiver = {
    url: "",
    received,
    delayMs: 0,
    script: (path, statuses) => void scripts.set(path, [...statuses]),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const r: Received = { path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(r);
      const status = scripts.get(path)?.shift() ?? receiver.answer?.(r) ?? 200;
      setTimeout(() => res.writeHead(status).end(status < 300 ? "ok" : "no"), receiver.delayMs);
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** Which of `secrets` (whsec_…) signed this request, by the Standard Webhooks scheme; throws on a malformed header. */
export function signedBy(secrets: string[], r: Received): string[] {
  const id = String(r.headers["webhook-id"]);
  const timestamp = String(r.headers["webhook-timestamp"]);
  const signatures = String(r.headers["webhook-signature"]).split(" ");
  if (!/^\d+$/.test(timestamp)) throw new Error(`bad webhook-timestamp ${timestamp}`);
  return secrets.filter((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
    const expected = Buffer.from(createHmac("sha256", key).update(`${id}.${timestamp}.${r.body}`).digest("base64"));
    return signatures.some((s) => {
      const [version, value = ""] = s.split(",");
      const got = Buffer.from(value);
      return version === "v1" && got.length === expected.length && timingSafeEqual(got, expected);
    });
  });
}
