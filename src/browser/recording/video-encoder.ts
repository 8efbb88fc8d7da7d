import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../../logger.ts";
import { jailedCommand } from "../jail/jail.ts";
import { handOver, jailUsers } from "../jail/users.ts";
import { jpegSize, mkvFrame, mkvHeader } from "./mkv-stream.ts";

/**
 * A session's screen frames (JPEG, from screen-recorder.ts) into one MP4 that any browser plays:
 * H.264 (libx264, yuv420p) at a variable frame rate, every frame scaled and padded into the size of
 * the first (so a tab that changes size is fine), the index at the front (`+faststart`) so a player
 * can seek before it has it all. Frames go to ffmpeg with their own timestamps (mkv-stream.ts).
 *
 * The JPEG bytes come from a browser the tenant controls, so ffmpeg parses hostile input: on a
 * jailed node it runs in a jail of its own (browser/jail/jail.ts, without an egress socket: no network at all),
 * seeing /usr and nothing writable but this recording's private folder. Before that, each frame
 * must start like a JPEG, declare a sane size, and stay under MAX_FRAME_BYTES.
 */

export interface EncoderOptions {
  ffmpegPath: string;
  /** The recording's own private folder (0700): ffmpeg's only writable place, where the MP4 is written. */
  dir: string;
  /** Run ffmpeg jailed: true on a jailed node; false only where browsers run unjailed too (isolation none). */
  jail: boolean;
  /** When the recording starts (ms since the epoch): frames are placed on the timeline from here. */
  originMs: number;
  log: Logger;
}

export interface EncodedVideo {
  file: string;
  sizeBytes: number;
  durationMs: number;
  /** Frames encoded (the final repeat of the last one included). */
  frames: number;
  width: number;
  height: number;
}

/** A screencast frame of 1280×800 at quality 65 is ~50–300 KiB; anything this big is not one. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Larger declared sizes are refused before ffmpeg allocates for them (screencasts stop at 1280×800). */
const MAX_SIDE = 4096;
/** How long ffmpeg may take to finish after its input closed (the encoder keeps up as it goes; this is its tail). */
const FINISH_TIMEOUT_MS = 120_000;
const STDERR_KEPT = 4096;
/**
 * A key frame at least every this many frames (5 s at the full 25 fps), so a seek decodes little.
 * Not by time: frames of a still page come seconds apart, and each would become a full key frame.
 */
const KEYFRAME_EVERY_FRAMES = 125;

const even = (n: number) => Math.max(16, n + (n % 2));
/** The video is never larger than the screencast's own bounds (a screenshot of a large viewport may be). */
const MAX_VIDEO = { width: 1280, height: 800 };

export function ffmpegArgs(width: number, height: number, output: string): string[] {
  const fit = `scale=${width}:${height}:force_original_aspect_ratio=decrease:force_divisible_by=2`;
  return [
    "-hide_banner",
    "-loglevel",
    "error",
    "-nostats",
    // Start at the first frame: the stream says what it is, there is nothing to probe.
    "-probesize",
    "32",
    "-analyzeduration",
    "0",
    "-f",
    "matroska",
    "-i",
    "pipe:0",
    "-vf",
    `${fit},pad=${width}:${height}:-1:-1:color=black,format=yuv420p`,
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "28",
    "-bf",
    "0",
    "-x264-params",
    "rc-lookahead=10",
    "-g",
    String(KEYFRAME_EVERY_FRAMES),
    "-threads",
    "2",
    "-fps_mode",
    "vfr",
    "-video_track_timescale",
    "1000",
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    "-y",
    output,
  ];
}

export class VideoEncoder {
  #child: ChildProcess | undefined;
  #exit: Promise<number | null> | undefined;
  #stderr = "";
  #width = 0;
  #height = 0;
  #lastMs = -1;
  #last: Buffer | undefined;
  #frames = 0;
  #dropped = 0;
  #failed: string | undefined;
  /** Called when ffmpeg has taken what was written and can take another frame. */
  onReady: () => void = () => {};

  constructor(private readonly opts: EncoderOptions) {}

  /** False while ffmpeg has not read what was written (the recorder then holds Chromium's acks). */
  get ready(): boolean {
    const stdin = this.#child?.stdin;
    return !this.#failed && (!stdin || !stdin.writableNeedDrain);
  }

  get frames(): number {
    return this.#frames;
  }

  /** Frames refused (not a JPEG, too large) or dropped because ffmpeg was behind. */
  get dropped(): number {
    return this.#dropped;
  }

  /** One frame captured at `atMs` (ms since the epoch). False when it was refused or dropped. */
  push(jpeg: Buffer, atMs: number): boolean {
    if (this.#failed) return false;
    const size = jpeg.length <= MAX_FRAME_BYTES && jpeg[2] === 0xff ? jpegSize(jpeg) : undefined;
    if (!size || size.width < 1 || size.height < 1 || size.width > MAX_SIDE || size.height > MAX_SIDE) {
      this.#dropped++;
      return false;
    }
    this.#last = jpeg;
    if (!this.#child) this.#start(size);
    if (!this.ready) {
      this.#dropped++;
      return false;
    }
    this.#write(jpeg, atMs);
    return true;
  }

  /**
   * The end at `endAtMs` (ms since the epoch): the last frame once more (so the video lasts as long as the session), then
   * ffmpeg's input closes and its MP4 is complete. Rejects when there was no frame or ffmpeg failed.
   */
  async finish(endAtMs: number): Promise<EncodedVideo> {
    if (!this.#child || !this.#last) throw new Error("no frame was captured");
    if (!this.#failed) this.#write(this.#last, Math.max(endAtMs, this.opts.originMs + this.#lastMs + 1));
    this.#child.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([this.#exit!, new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), FINISH_TIMEOUT_MS)))]);
    clearTimeout(timer);
    if (code === "timeout") {
      this.abort();
      throw new Error("ffmpeg did not finish in time");
    }
    if (code !== 0 || this.#failed) throw new Error(this.#failed ?? `ffmpeg failed (exit ${code}): ${this.#stderr.trim().split("\n").slice(-2).join(" / ")}`);
    const file = path.join(this.opts.dir, "recording.mp4");
    const { size } = await fs.promises.stat(file);
    return { file, sizeBytes: size, durationMs: this.#lastMs, frames: this.#frames, width: this.#width, height: this.#height };
  }

  /** Stops ffmpeg at once (its whole process group, the jail with it); what it wrote is left for the caller to delete. */
  abort(): void {
    this.#failed ??= "aborted";
    const pid = this.#child?.pid;
    if (pid && this.#child?.exitCode === null) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  #write(jpeg: Buffer, atMs: number): void {
    // The first frame opens the timeline; the timeline never runs backwards.
    const at = this.#lastMs < 0 ? 0 : Math.max(Math.round(atMs - this.opts.originMs), this.#lastMs + 1);
    this.#lastMs = at;
    this.#frames++;
    this.#child!.stdin!.write(mkvFrame(jpeg, at));
  }

  /** ffmpeg, started by the first frame: the video takes that frame's size (within MAX_VIDEO, rounded up to even). */
  #start(size: { width: number; height: number }): void {
    const scale = Math.min(1, MAX_VIDEO.width / size.width, MAX_VIDEO.height / size.height);
    this.#width = even(Math.round(size.width * scale));
    this.#height = even(Math.round(size.height * scale));
    const output = path.join(this.opts.dir, "recording.mp4");
    const args = ffmpegArgs(this.#width, this.#height, output);
    const { command, args: argv } = this.opts.jail
      ? jailedCommand({ executablePath: this.opts.ffmpegPath, args, dir: this.opts.dir, readOnly: ["/etc/alternatives"] })
      : { command: this.opts.ffmpegPath, args };
    // Jailed, as a host user of its own (browser/jail/users.ts) that owns the recording's folder, like a browser.
    const user = this.opts.jail ? jailUsers().take() : undefined;
    let child: ChildProcess;
    try {
      handOver([this.opts.dir], user);
      child = spawn(command, argv, { cwd: this.opts.dir, stdio: ["pipe", "ignore", "pipe"], env: { PATH: "/usr/bin:/bin" }, detached: true, ...user });
    } catch (err) {
      jailUsers().release(user);
      throw err;
    }
    this.#child = child;
    this.#exit = new Promise((resolve) => {
      child.once("error", (err) => {
        this.#failed ??= `ffmpeg could not be started: ${err.message}`;
        jailUsers().release(user);
        resolve(null);
      });
      // bwrap exits once the jail's init has, and every process of the jail went with it.
      child.once("close", (code) => (jailUsers().release(user), resolve(code)));
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEPT)));
    child.stdin!.on("error", () => {
      // ffmpeg went away: its exit code and stderr say why (finish reports it).
      this.#failed ??= `ffmpeg stopped reading: ${this.#stderr.trim().split("\n").slice(-2).join(" / ") || "no reason given"}`;
    });
    child.stdin!.on("drain", () => this.onReady());
    child.stdin!.write(mkvHeader(this.#width, this.#height));
  }
}
