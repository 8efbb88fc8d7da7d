/**
 * A minimal Matroska stream of JPEG frames, each with its own timestamp, for ffmpeg to read from a
 * pipe (video-encoder.ts). Why not `-f image2pipe`: a JPEG stream carries no time, so ffmpeg would
 * either assume a fixed rate or stamp each frame when it happens to read it
 * (`-use_wallclock_as_timestamps`), which drifts whenever the encoder is behind. Here every frame is
 * a cluster of its own (a timestamp in milliseconds and one key-frame SimpleBlock) with known sizes;
 * only the segment has an unknown size, as in any live Matroska stream.
 */

/** An EBML variable-length size: the shortest form that is not all ones (all ones means "unknown"). */
function vint(n: number): Buffer {
  for (let length = 1; length <= 7; length++) {
    if (n < 2 ** (7 * length) - 1) {
      const out = Buffer.alloc(length);
      let v = n;
      for (let i = length - 1; i >= 0; i--) {
        out[i] = v % 256;
        v = Math.floor(v / 256);
      }
      out[0]! |= 0x80 >> (length - 1);
      return out;
    }
  }
  throw new RangeError(`an EBML size of ${n} bytes is too large`);
}

/** An unsigned integer in as few bytes as it takes (at least one). */
function uint(n: number): Buffer {
  const bytes: number[] = [];
  let v = Math.max(0, Math.floor(n));
  do {
    bytes.unshift(v % 256);
    v = Math.floor(v / 256);
  } while (v > 0);
  return Buffer.from(bytes);
}

const element = (id: number[], data: Buffer): Buffer => Buffer.concat([Buffer.from(id), vint(data.length), data]);
const master = (id: number[], children: Buffer[]): Buffer => element(id, Buffer.concat(children));
const text = (id: number[], value: string): Buffer => element(id, Buffer.from(value, "ascii"));

const SEGMENT = [0x18, 0x53, 0x80, 0x67];
const CLUSTER = [0x1f, 0x43, 0xb6, 0x75];
const TIMESTAMP = [0xe7];
const SIMPLE_BLOCK = [0xa3];
const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
/** Track 1 (as a vint), timestamp 0 relative to its cluster, flags: key frame. */
const BLOCK_HEADER = Buffer.from([0x81, 0x00, 0x00, 0x80]);

/** The stream's start: the EBML header, an open segment, its info (milliseconds) and its one MJPEG track. */
export function mkvHeader(width: number, height: number): Buffer {
  const ebml = master(
    [0x1a, 0x45, 0xdf, 0xa3],
    [
      element([0x42, 0x86], uint(1)), // EBMLVersion
      element([0x42, 0xf7], uint(1)), // EBMLReadVersion
      element([0x42, 0xf2], uint(4)), // EBMLMaxIDLength
      element([0x42, 0xf3], uint(8)), // EBMLMaxSizeLength
      text([0x42, 0x82], "matroska"), // DocType
      element([0x42, 0x87], uint(4)), // DocTypeVersion
      element([0x42, 0x85], uint(2)), // DocTypeReadVersion
    ],
  );
  const info = master(
    [0x15, 0x49, 0xa9, 0x66],
    [
      element([0x2a, 0xd7, 0xb1], uint(1_000_000)), // TimestampScale: 1 ms
      text([0x4d, 0x80], "vessel"), // MuxingApp
      text([0x57, 0x41], "vessel"), // WritingApp
    ],
  );
  const track = master(
    [0xae],
    [
      element([0xd7], uint(1)), // TrackNumber
      element([0x73, 0xc5], uint(1)), // TrackUID
      element([0x83], uint(1)), // TrackType: video
      element([0x9c], uint(0)), // FlagLacing
      text([0x86], "V_MJPEG"), // CodecID
      master([0xe0], [element([0xb0], uint(width)), element([0xba], uint(height))]), // Video: PixelWidth, PixelHeight
    ],
  );
  const tracks = master([0x16, 0x54, 0xae, 0x6b], [track]);
  return Buffer.concat([ebml, Buffer.from(SEGMENT), UNKNOWN_SIZE, info, tracks]);
}

/** One frame: a cluster at `timestampMs` holding the JPEG as a key-frame block. */
export function mkvFrame(jpeg: Buffer, timestampMs: number): Buffer {
  const timestamp = element(TIMESTAMP, uint(timestampMs));
  const blockSize = vint(BLOCK_HEADER.length + jpeg.length);
  const clusterSize = timestamp.length + SIMPLE_BLOCK.length + blockSize.length + BLOCK_HEADER.length + jpeg.length;
  return Buffer.concat([Buffer.from(CLUSTER), vint(clusterSize), timestamp, Buffer.from(SIMPLE_BLOCK), blockSize, BLOCK_HEADER, jpeg]);
}

/**
 * The width and height a JPEG's frame header (SOFn) declares, or undefined when the bytes are not a
 * JPEG whose header can be found. Only reads markers, bounds-checked: the bytes come from a browser.
 */
export function jpegSize(jpeg: Buffer): { width: number; height: number } | undefined {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 <= jpeg.length) {
    if (jpeg[i] !== 0xff) return undefined;
    const marker = jpeg[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC): the frame header.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7) };
    }
    if (marker === 0xda || marker === 0xd9) return undefined; // scan data or the end before any frame header
    i += 2 + jpeg.readUInt16BE(i + 2);
  }
  return undefined;
}
