import puppeteer, { type Browser, type ConnectionTransport } from "puppeteer-core";
import type { CdpPipe } from "../../src/browser/cdp/pipe/pipe.ts";

/**
 * puppeteer-core on a channel of a browser's pipe, for tests that drive a browser directly (there is
 * no DevTools port to connect to). No method policy applies: this is the service's own side.
 */
export async function connectToPipe(pipe: CdpPipe, protocolTimeout = 10_000): Promise<Browser> {
  const channel = await pipe.open();
  const transport: ConnectionTransport = {
    send: (message) => {
      const parsed = JSON.parse(message) as { id: number; method: string; params?: unknown; sessionId?: string };
      channel.send(parsed);
    },
    close: () => channel.close(),
  };
  channel.onMessage = (data) => transport.onmessage?.(data.toString("utf8"));
  channel.onClose = () => transport.onclose?.();
  return puppeteer.connect({ transport, protocolTimeout });
}
