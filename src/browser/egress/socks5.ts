import type net from "node:net";

/**
 * The SOCKS5 side of the egress listener (RFC 1928): CONNECT only, without authentication, which is
 * what Chromium speaks to a `socks5://` proxy. Kept apart from proxy.ts, which judges and
 * connects what this parses.
 */

/** A SOCKS5 reply with `code`; the bound address means nothing here and is sent as 0.0.0.0:0. */
export function socksReply(code: number): Buffer {
  return Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}

/**
 * Reads a SOCKS5 greeting and CONNECT request (they may arrive split or together), answering the
 * greeting. Resolves with the destination and any bytes after the request, or null for anything
 * else (other commands, authentication only, malformed); rejects when the client goes away.
 */
export function readSocksRequest(client: net.Socket, first: Buffer): Promise<{ host: string; port: number; rest: Buffer } | null> {
  return new Promise((resolve, reject) => {
    let buffered = first;
    let greeted = false;
    const done = (value: { host: string; port: number; rest: Buffer } | null) => {
      client.off("data", onData);
      client.off("close", onClose);
      resolve(value);
    };
    const onClose = () => reject(new Error("closed"));
    const step = (): void => {
      if (!greeted) {
        if (buffered.length < 2 || buffered.length < 2 + buffered[1]!) return;
        const methods = buffered.subarray(2, 2 + buffered[1]!);
        buffered = buffered.subarray(2 + buffered[1]!);
        if (!methods.includes(0x00)) {
          client.end(Buffer.from([0x05, 0xff]));
          return done(null);
        }
        greeted = true;
        client.write(Buffer.from([0x05, 0x00]));
      }
      if (buffered.length < 5) return;
      if (buffered[0] !== 0x05 || buffered[1] !== 0x01) {
        client.end(socksReply(0x07)); // command not supported (BIND, UDP ASSOCIATE)
        return done(null);
      }
      const type = buffered[3];
      const addressLength = type === 0x01 ? 4 : type === 0x04 ? 16 : type === 0x03 ? 1 + buffered[4]! : -1;
      if (addressLength < 0) {
        client.end(socksReply(0x08));
        return done(null);
      }
      const end = 4 + addressLength + 2;
      if (buffered.length < end) return;
      const raw = buffered.subarray(4, 4 + addressLength);
      const host = type === 0x01 ? [...raw].join(".") : type === 0x04 ? ipv6(raw) : raw.subarray(1).toString("latin1");
      const port = buffered.readUInt16BE(4 + addressLength);
      if (port === 0 || host.length === 0) {
        client.end(socksReply(0x01));
        return done(null);
      }
      done({ host, port, rest: buffered.subarray(end) });
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length > 1024) return done(null);
      step();
    };
    client.on("data", onData);
    client.once("close", onClose);
    step();
  });
}

function ipv6(raw: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(raw.readUInt16BE(i).toString(16));
  return groups.join(":");
}
