// Receiving Vessel's webhooks: a small HTTP server that checks each delivery's signature with the
// webhook's secret (verifyWebhook: constant-time, timestamps within 5 minutes) and prints its event.
// Answer 2xx quickly: Vessel retries anything else (for 24 hours, same webhook-id: de-duplicate by it).
//   VESSEL_WEBHOOK_SECRET=whsec_… PORT=3000 npx tsx examples/webhook-receiver.ts
// Register it once: curl -X POST $VESSEL_BASE_URL/v1/webhooks -H "Authorization: Bearer $VESSEL_API_KEY" \
//   -H 'content-type: application/json' -d '{"url":"https://you.example/hooks/vessel","events":["session.released","live_view.done"]}'
// A receiver on the server's own machine (http://127.0.0.1:3000/) is refused (422 webhook-address-refused)
// unless the server runs with VESSEL_WEBHOOK_ALLOW=127.0.0.1,localhost (docs/webhooks.md, local receivers).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook, WebhookVerificationError } from "@vessel/client";

const secret = process.env.VESSEL_WEBHOOK_SECRET;
if (!secret) throw new Error("set VESSEL_WEBHOOK_SECRET to the webhook's whsec_… secret");
const seen = new Set<string>();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      // The raw bytes as received: a re-serialized object would not match the signature.
      const event = verifyWebhook(secret, req.headers, Buffer.concat(chunks));
      const id = String(req.headers["webhook-id"]);
      if (!seen.has(id)) {
        seen.add(id);
        console.log(JSON.stringify({ webhook_id: id, type: event.type, timestamp: event.timestamp, session: event.data.session_id ?? event.data.id }));
      }
      res.writeHead(204).end();
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.error(`refused a delivery: ${err.message}`);
      res.writeHead(400).end();
    }
  });
});
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  console.log(JSON.stringify({ listening: `http://${process.env.HOST ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}/` }));
});
