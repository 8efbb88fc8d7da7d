import WebSocket, { WebSocketServer } from "ws";
import type { CommandLog } from "./command-log.ts";
import { commandOutcome, errorAnswer, type Outcome } from "../policy/command.ts";
import { judgeOffLoop, OFF_LOOP_BYTES, type JudgeResult } from "../policy/judge-thread.ts";
import type { CdpChannel } from "../pipe/pipe.ts";
import { FRONT } from "../pipe/channel.ts";
import { CloseCode } from "../../close-codes.ts";
import { withoutPostData } from "./withheld-post-data.ts";

/**
 * One CDP client of a session, relayed to its channel on the browser's pipe (browser/cdp/pipe/pipe.ts).
 *
 * Every message of the client is parsed here, checked for shape, and judged by the method policy
 * (browser/cdp/policy/policy.ts) before anything reaches Chromium; what goes on is our own serialisation of what
 * was judged (only `id`, `method`, `params` and `sessionId`), so Chromium never reads bytes we did
 * not. A refused or malformed command is answered here with a CDP error carrying the client's id
 * (and sessionId), and the connection stays up. Chromium's messages go to the client as they came.
 * A message of OFF_LOOP_BYTES or more is read, judged and serialised on the judging thread
 * (browser/cdp/policy/judge-thread.ts), in order with the client's other messages, which wait for it.
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
  /**
   * Asked once before the messages that queued behind a large one (judged off the event loop,
   * browser/cdp/policy/judge-thread.ts) go on: false closes the client instead (1012) and sends nothing more. The
   * hook for a node that may have lost its lease on the session meanwhile; unset, they go on.
   */
  mayResume?(): Promise<boolean>;
}

const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/** Methods the channel looks into as they are sent (browser/cdp/pipe/channel.ts FRONT: the active page) or that are answered here. */
const NEEDS_CHANNEL = new Set([...FRONT, "Browser.close"]);

/** Writes a command judged and serialised on the judging thread, as CdpChannel.send would have. */
function sendBytes(channel: CdpChannel, bytes: Buffer, sessionId: string | undefined): boolean {
  if (!channel.isOpen || (sessionId !== undefined && !channel.owns(sessionId))) return false;
  return channel.pipe.write(bytes);
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
    const pipe = channel.pipe;
    client.send(pipe.withholdPostDataUntil > 0 && pipe.withholdPostDataUntil > Date.now() ? withoutPostData(message) : message, { binary: false });
  };
  channel.onClose = () => {
    if (client.readyState !== WebSocket.OPEN && client.readyState !== WebSocket.CONNECTING) return;
    // The pipe is gone with the browser: a crash (1011, browser/close-codes.ts). A channel that ends while the
    // browser lives on lost its target (a page endpoint whose page was closed): a normal close.
    if (opts.browserAlive?.()) client.close(1000, "the target has closed");
    else client.close(CloseCode.browserCrashed, "the browser has gone");
  };

  /** Sends a judged command on; answers here what cannot go (a target that is gone, Browser.close). */
  const forward = (outcome: Extract<Outcome, { kind: "send" }>, bytes?: Buffer) => {
    const { command } = outcome;
    if (outcome.redirected) opts.onRedirected?.(command.method);
    if (outcome.downloadContext !== undefined) opts.onDownloadBehaviour?.(outcome.downloadContext);
    if (command.method === "Browser.close" && command.sessionId === undefined && opts.onBrowserClose) {
      commands?.answeredHere(command.method, false);
      answer(JSON.stringify({ id: command.id, result: {} }));
      return opts.onBrowserClose();
    }
    if (bytes ? sendBytes(channel, bytes, command.sessionId) : channel.send(command)) {
      commands?.sent(command.id, command.method);
    } else {
      commands?.answeredHere(command.method, false);
      answer(errorAnswer(command.id, -32001, "Session with given id not found.", command.sessionId));
    }
  };
  const handle = (outcome: Outcome) => {
    if (outcome.kind === "send") return forward(outcome);
    if (outcome.refused) {
      opts.onRefused(outcome.refused.method, outcome.refused.reason);
      commands?.answeredHere(outcome.refused.method, true);
    }
    answer(outcome.answer);
  };

  // Messages are handled in order. A large one is judged on the judging thread; what arrives
  // meanwhile waits in `queued` behind it (its bytes only: ws has them whole already).
  const queued: Buffer[] = [];
  let draining = false;
  const drain = async () => {
    draining = true;
    let stalled = false;
    while (queued.length > 0 && client.readyState === WebSocket.OPEN) {
      const data = queued.shift()!;
      if (data.length < OFF_LOOP_BYTES) {
        if (stalled && opts.mayResume && !(await opts.mayResume())) return client.close(1012, "the session moved");
        stalled = false;
        handle(commandOutcome(data, opts.policy, opts.downloads));
        continue;
      }
      let result: JudgeResult | undefined;
      try {
        result = await judgeOffLoop(data, opts.policy, opts.downloads, channel.root);
      } catch {
        answer(errorAnswer(undefined, -32603, "Message could not be judged"));
      }
      stalled = true;
      if (result?.kind === "answer") handle(result);
      else if (result) judgedOffLoop(result);
    }
    draining = false;
  };
  /** A command judged on the thread: written as its bytes, or through channel.send when it needs the pipe's own look. */
  const judgedOffLoop = (r: Extract<JudgeResult, { kind: "send" }>) => {
    const bare = { id: r.id, method: r.method, ...(r.sessionId !== undefined ? { sessionId: r.sessionId } : {}) };
    const outcome = { kind: "send" as const, redirected: r.redirected, downloadContext: r.downloadContext };
    if (!NEEDS_CHANNEL.has(r.method)) return forward({ ...outcome, command: bare }, r.bytes as Buffer);
    const { params } = JSON.parse((r.bytes as Buffer).subarray(0, -1).toString("utf8")) as { params?: Record<string, unknown> };
    forward({ ...outcome, command: { ...bare, ...(params ? { params } : {}) } });
  };

  client.on("message", (data: Buffer) => {
    if (!draining && data.length < OFF_LOOP_BYTES) return handle(commandOutcome(data, opts.policy, opts.downloads));
    queued.push(data);
    if (!draining) void drain();
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

/**
 * The WebSocket server for clients whose messages may be up to `maxPayload` bytes
 * (`VESSEL_CDP_MAX_MESSAGE_BYTES`): ws closes a client that sends more with 1009 as soon as the
 * frame header announces it, before buffering it. One per size (in practice one per process).
 */
const clientServers = new Map<number, WebSocketServer>();
export function clientsOf(maxPayload: number): WebSocketServer {
  let server = clientServers.get(maxPayload);
  if (!server) clientServers.set(maxPayload, (server = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload })));
  return server;
}
