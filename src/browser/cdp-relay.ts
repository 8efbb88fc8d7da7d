import WebSocket from "ws";
import type { CommandLog } from "./cdp-command-log.ts";
import { downloadBehaviourContext, judgeCommand } from "./cdp-policy.ts";
import type { CdpChannel } from "./cdp-pipe.ts";
import { CloseCode } from "./close-codes.ts";

/**
 * One CDP client of a session, relayed to its channel on the browser's pipe (cdp-pipe.ts).
 *
 * Every message of the client is parsed here, checked for shape, and judged by the method policy
 * (cdp-policy.ts) before anything reaches Chromium; what goes on is our own serialisation of what
 * was judged (only `id`, `method`, `params` and `sessionId`), so Chromium never reads bytes we did
 * not. A refused or malformed command is answered here with a CDP error carrying the client's id
 * (and sessionId), and the connection stays up. Chromium's messages go to the client as they came.
 */

export interface RelayOptions {
  /** Judge commands by the method policy; off only in tests of the other isolation layers and benchmarks. */
  policy: boolean;
  /** The session's own download folder: the only place downloads and uploads may use. */
  downloads: string;
  onRefused(method: string, reason: string): void;
  /** A download folder was replaced by the session's own. */
  onRedirected?(method: string): void;
  /** A client set the download behaviour of a browser context (null: the default one), and it was let through. */
  onDownloadBehaviour?(context: string | null): void;
  /**
   * A client asked the browser to close (`Browser.close` on its root): answered here and the session
   * released instead, so the end is recorded as the client's and not as a crash.
   */
  onBrowserClose?(): void;
  /** Whether the session's browser still runs (its pipe is open): tells a closed target from a crash. */
  browserAlive?(): boolean;
  /** A client that lets this much of Chromium's output pile up unread is disconnected (1013). */
  maxBufferedBytes?: number;
  /** The session's logs are on: each command's method and time to its answer (never its params). */
  commands?: CommandLog;
}

const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/** CDP method names are `Domain.method`; anything longer or odder is not one. */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}\.[A-Za-z][A-Za-z0-9]{0,127}$/;

interface Command {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

/** A CDP error answer, as Chromium words its own. */
function errorAnswer(id: number | undefined, code: number, message: string, sessionId?: string): string {
  return JSON.stringify({ ...(id !== undefined ? { id } : {}), error: { code, message }, ...(sessionId !== undefined ? { sessionId } : {}) });
}

/** The command in a client's message, or the error to answer it with. */
function readCommand(data: Buffer): Command | { answer: string } {
  let message: unknown;
  try {
    message = JSON.parse(data.toString("utf8"));
  } catch {
    return { answer: errorAnswer(undefined, -32700, "Message must be valid JSON") };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return { answer: errorAnswer(undefined, -32600, "Message must be an object") };
  }
  const { id, method, params, sessionId } = message as Record<string, unknown>;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
    return { answer: errorAnswer(undefined, -32600, "Message must have integer 'id' property") };
  }
  const session = typeof sessionId === "string" ? sessionId : undefined;
  if (sessionId !== undefined && session === undefined) return { answer: errorAnswer(id, -32600, "Message has property other than 'id', 'method', 'sessionId', 'params'") };
  if (typeof method !== "string" || !METHOD_NAME.test(method)) return { answer: errorAnswer(id, -32600, "Message must have string 'method' property", session) };
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return { answer: errorAnswer(id, -32602, "Invalid parameters", session) };
  }
  return { id, method, ...(params ? { params: params as Record<string, unknown> } : {}), ...(session !== undefined ? { sessionId: session } : {}) };
}

/** Relays `client` to `channel` until either ends; closing one closes the other. */
export function relayClient(client: WebSocket, channel: CdpChannel, opts: RelayOptions): void {
  const maxBuffered = opts.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const commands = opts.commands;
  const answer = (text: string) => {
    if (client.readyState === WebSocket.OPEN) client.send(text);
  };

  channel.onMessage = (message) => {
    if (commands !== undefined) commands.received(message);
    if (client.readyState !== WebSocket.OPEN) return;
    if (client.bufferedAmount > maxBuffered) {
      client.close(1013, "the client does not read the browser's messages");
      return;
    }
    client.send(message, { binary: false });
  };
  channel.onClose = () => {
    if (client.readyState !== WebSocket.OPEN && client.readyState !== WebSocket.CONNECTING) return;
    // The pipe is gone with the browser: a crash (1011, close-codes.ts). A channel that ends while the
    // browser lives on lost its target (a page endpoint whose page was closed): a normal close.
    if (opts.browserAlive?.()) client.close(1000, "the target has closed");
    else client.close(CloseCode.browserCrashed, "the browser has gone");
  };

  client.on("message", (data: Buffer) => {
    const command = readCommand(data);
    if ("answer" in command) return answer(command.answer);
    let params = command.params;
    if (opts.policy) {
      const verdict = judgeCommand(command.method, params ?? {}, { downloads: opts.downloads });
      if (verdict.kind === "refuse") {
        opts.onRefused(command.method, verdict.reason);
        commands?.answeredHere(command.method, true);
        return answer(errorAnswer(command.id, -32000, `Vessel policy: ${command.method} refused: ${verdict.reason}`, command.sessionId));
      }
      if (verdict.kind === "rewrite") {
        params = verdict.params;
        opts.onRedirected?.(command.method);
      }
      const context = downloadBehaviourContext({ method: command.method, params });
      if (context !== undefined) opts.onDownloadBehaviour?.(context);
    }
    if (command.method === "Browser.close" && command.sessionId === undefined && opts.onBrowserClose) {
      commands?.answeredHere(command.method, false);
      answer(JSON.stringify({ id: command.id, result: {} }));
      return opts.onBrowserClose();
    }
    if (channel.send({ ...command, ...(params ? { params } : {}) })) {
      commands?.sent(command.id, command.method);
    } else {
      commands?.answeredHere(command.method, false);
      answer(errorAnswer(command.id, -32001, "Session with given id not found.", command.sessionId));
    }
  });
  client.on("close", () => {
    channel.close();
    commands?.close();
  });
  // A frame ws refuses (WS_ERR_*: too big, malformed) is closed by ws itself with its code (1009,
  // 1002, 1007), which reaches the client only if the socket is not cut under it; anything else is cut.
  client.on("error", (err: Error & { code?: string }) => {
    if (!err.code?.startsWith("WS_ERR_")) client.terminate();
  });
}
