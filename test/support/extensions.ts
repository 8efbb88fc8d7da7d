import http from "node:http";
import { bearer, type TestApp } from "./app.ts";

/**
 * POST /v1/extensions on a connection of its own. Not fetch: the test app runs in the test's own
 * process, so building a large zip blocks both, and the server's keep-alive timer can then close a
 * pooled connection just as fetch reuses it for the POST (ECONNRESET, which fetch does not retry).
 */
export function uploadExtensionZip(t: TestApp, key: string, zip: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${t.url}/v1/extensions`,
      { method: "POST", agent: false, headers: { ...bearer(key), "content-type": "application/zip", "content-length": zip.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(zip);
  });
}
