// What the pipe (pipe.ts) reads off Chromium's messages without parsing them, and its errors.

/** CDP calls a target attachment a session: its id travels as `sessionId`, always last. */
const ATTACHMENT_TAIL = Buffer.from(',"sessionId":"', "latin1");
/** `,"sessionId":"` + 32 hex + `"}` */
export const TAIL_LENGTH = ATTACHMENT_TAIL.length + 32 + 2;

/** The attachment id (CDP's `sessionId`) a message of Chromium's ends with, or undefined for the pipe's own messages. */
export function attachmentOf(message: Buffer): string | undefined {
  const n = message.length;
  if (n < TAIL_LENGTH + 2 || message[n - 1] !== 0x7d || message[n - 2] !== 0x22) return undefined;
  const at = n - TAIL_LENGTH;
  if (!message.subarray(at, at + ATTACHMENT_TAIL.length).equals(ATTACHMENT_TAIL)) return undefined;
  return message.toString("latin1", at + ATTACHMENT_TAIL.length, n - 2);
}

export class CdpPipeClosed extends Error {
  constructor() {
    super("the browser connection is closed");
    this.name = "CdpPipeClosed";
  }
}

export class CdpCallError extends Error {
  constructor(method: string, message: string) {
    super(`${method}: ${message}`);
    this.name = "CdpCallError";
  }
}

/**
 * Splits a byte stream of NUL-terminated messages (Chromium's pipe, the relay host's links): fed
 * chunks as they come, it calls `onMessage` with each whole message (without its NUL) and `nul`,
 * the index of that NUL in the chunk (-1 for a message joined from pieces of earlier chunks).
 */
export function nulFramed(onMessage: (message: Buffer, chunk: Buffer, nul: number) => void): (chunk: Buffer) => void {
  let partial: Buffer[] = [];
  return (chunk) => {
    let start = 0;
    for (let nul = chunk.indexOf(0); nul !== -1; nul = chunk.indexOf(0, start)) {
      const piece = chunk.subarray(start, nul);
      const joined = partial.length > 0;
      const message = joined ? Buffer.concat([...partial, piece]) : piece;
      partial = [];
      start = nul + 1;
      onMessage(message, chunk, joined ? -1 : nul);
    }
    // Pieces of a message that goes on in a later chunk: joined once, when its end arrives.
    if (start < chunk.length) partial.push(chunk.subarray(start));
  };
}
