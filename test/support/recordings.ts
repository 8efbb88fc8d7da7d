import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

/** Debian's ffmpeg and ffprobe (scripts/setup.sh installs them). */
export const hasFfmpeg = fs.existsSync("/usr/bin/ffmpeg") && fs.existsSync("/usr/bin/ffprobe");

/** The colour the recorded page shows everywhere but in its small animated box. */
export const PAGE_RGB = [20, 180, 90] as const;

/** A loopback page of one distinctive colour, with a small box animated by requestAnimationFrame (so the screen changes). */
export async function startColourPage(): Promise<{ url: string; close(): Promise<void> }> {
  const [r, g, b] = PAGE_RGB;
  const html = `<!doctype html><title>recorded</title>
<style>html,body{margin:0;height:100%;background:rgb(${r},${g},${b})}#box{position:fixed;left:0;top:0;width:40px;height:40px;background:#fff}</style>
<div id="box"></div>
<script>let x = 0; (function step() { x = (x + 3) % 200; document.getElementById("box").style.transform = "translateX(" + x + "px)"; requestAnimationFrame(step); })();</script>`;
  const server = http.createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Probe {
  formatName: string;
  durationSeconds: number;
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
}

/** What ffprobe reads in an MP4 (throws when it cannot read it). */
export function ffprobe(bytes: Buffer): Probe {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-probe-"));
  try {
    const file = path.join(dir, "video.mp4");
    fs.writeFileSync(file, bytes);
    const out = JSON.parse(
      execFileSync("/usr/bin/ffprobe", [
        "-v",
        "error",
        "-show_entries",
        "format=format_name,duration:stream=codec_name,pix_fmt,width,height",
        "-of",
        "json",
        file,
      ]).toString(),
    ) as { format: { format_name: string; duration: string }; streams: Array<{ codec_name: string; pix_fmt: string; width: number; height: number }> };
    const stream = out.streams[0]!;
    return {
      formatName: out.format.format_name,
      durationSeconds: Number(out.format.duration),
      codec: stream.codec_name,
      pixFmt: stream.pix_fmt,
      width: stream.width,
      height: stream.height,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The RGB of pixel (x, y) of the video's last frame, decoded by ffmpeg. */
export function lastFramePixel(bytes: Buffer, width: number, x: number, y: number): [number, number, number] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-frame-"));
  try {
    const file = path.join(dir, "video.mp4");
    fs.writeFileSync(file, bytes);
    // From a second before the end, every frame is decoded; `-update 1` keeps overwriting the one output image: the last.
    execFileSync("/usr/bin/ffmpeg", [
      "-v",
      "error",
      "-sseof",
      "-1",
      "-i",
      file,
      "-f",
      "image2",
      "-update",
      "1",
      "-pix_fmt",
      "rgb24",
      "-c:v",
      "rawvideo",
      "-y",
      path.join(dir, "last.rgb"),
    ]);
    const raw = fs.readFileSync(path.join(dir, "last.rgb"));
    const at = (y * width + x) * 3;
    return [raw[at]!, raw[at + 1]!, raw[at + 2]!];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Within `tolerance` in every channel (JPEG and H.264 shift colours a little). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 24): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);
}
