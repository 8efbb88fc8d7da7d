import { isCredentialName, REDACTED, redactText } from "../../redaction.ts";
import { cut, entryUrl } from "./format.ts";

/**
 * What a `network` entry keeps beyond its summary so that a HAR can be built from the log alone
 * (services/session-exports/har.ts): headers, the phases of its time, the protocol, the server's
 * address. A header keeps its name; its value is `[redacted]` when the name is a credential's by
 * the one rule (redaction.ts: `Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, …), a URL's
 * credential query values are masked (`Location`, `Referer`), and any other value is cut at
 * MAX_HEADER_VALUE with credential parameters it quotes masked.
 */

export type HeaderPair = [name: string, value: string];

/** The longest header value an entry keeps. */
const MAX_HEADER_VALUE = 2 * 1024;
/** The most headers an entry keeps per side (a page cannot grow the log without bound through them). */
const MAX_HEADERS = 64;
const URL_HEADERS = new Set(["location", "referer", "content-location", "origin"]);

/** Chromium's headers (one value per name, several joined by newlines), as pairs with credentials masked. */
export function entryHeaders(headers: Record<string, string> | undefined): HeaderPair[] {
  if (!headers) return [];
  const pairs: HeaderPair[] = [];
  for (const [name, joined] of Object.entries(headers)) {
    for (const value of String(joined).split("\n")) {
      if (pairs.length >= MAX_HEADERS) return pairs;
      pairs.push([cut(name, 256), headerValue(name, value)]);
    }
  }
  return pairs;
}

function headerValue(name: string, value: string): string {
  if (value === "") return value;
  if (isCredentialName(name)) return REDACTED;
  if (URL_HEADERS.has(name.toLowerCase())) return entryUrl(value) ?? "";
  return cut(redactText(value), MAX_HEADER_VALUE);
}

/** Chromium's Network.ResourceTiming: `requestTime` in seconds, the rest in ms after it (-1: did not happen). */
export interface ResourceTiming {
  requestTime: number;
  proxyStart?: number;
  proxyEnd?: number;
  dnsStart: number;
  dnsEnd: number;
  connectStart: number;
  connectEnd: number;
  sslStart: number;
  sslEnd: number;
  sendStart: number;
  sendEnd: number;
  receiveHeadersEnd: number;
}

/** HAR's phases of one request, in ms: -1 for a phase that did not happen (a reused connection has no dns nor connect). */
export interface Timings {
  blocked: number;
  dns: number;
  connect: number;
  ssl: number;
  send: number;
  wait: number;
  receive: number;
}

const ms = (value: number) => Math.round(value * 10) / 10;
const span = (start: number, end: number) => (start >= 0 && end >= start ? ms(end - start) : -1);

/**
 * The phases of a request that took `total` ms from when it was sent for (`start`, Chromium's
 * monotonic seconds): as DevTools' HAR export reckons them. Everything before the first network
 * step is `blocked` (queueing, a proxy's turn); what follows the headers, to the end, is `receive`.
 * The phases add up to `total` (HAR's `time`). Without Chromium's timing (a cache hit, a failure
 * before an answer) the request is all `wait`.
 */
export function timingsOf(timing: ResourceTiming | undefined, start: number, total: number): Timings {
  if (!timing || timing.sendStart < 0) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: total, receive: 0 };
  const queued = Math.max(0, (timing.requestTime - start) * 1000);
  const dns = span(timing.dnsStart, timing.dnsEnd);
  const connect = span(timing.connectStart, timing.connectEnd);
  const ssl = span(timing.sslStart, timing.sslEnd);
  const blocked = ms(Math.max(0, queued + timing.sendStart - Math.max(0, dns) - Math.max(0, connect)));
  const send = ms(Math.max(0, timing.sendEnd - timing.sendStart));
  const wait = ms(Math.max(0, timing.receiveHeadersEnd - timing.sendEnd));
  const receive = ms(Math.max(0, total - blocked - Math.max(0, dns) - Math.max(0, connect) - send - wait));
  return { blocked, dns, connect, ssl, send, wait, receive };
}

/** Chromium's `remoteIPAddress` (an IPv6 one in brackets) as a bare address, or null. */
export function serverAddress(remote: string | undefined): string | null {
  if (!remote) return null;
  return remote.startsWith("[") && remote.endsWith("]") ? remote.slice(1, -1) : remote;
}
