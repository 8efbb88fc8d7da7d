import { useEffect, useRef, useState, type CSSProperties, type ReactNode, type RefObject } from "react";
import { formatBytes, formatDateTime, formatDuration } from "../lib/format.ts";
import { Spinner } from "../components/ui.tsx";

/** A session's recording as the server describes it (Session.recordingInfo). */
export interface RecordingInfo {
  status: "RECORDING" | "PROCESSING" | "READY" | "FAILED";
  sizeBytes?: number | null;
  durationMs?: number | null;
  width?: number | null;
  height?: number | null;
  startedAt?: string | null;
  expiresAt?: string | null;
  failure?: string | null;
}

/**
 * Where the video is read: the REST route, on the dashboard's own origin, so the sign-in cookie goes
 * with it (a <video> cannot send headers) and the CSP's `media-src 'self'` lets it play. The player
 * asks for byte ranges itself as it seeks.
 */
export function recordingUrl(workspace: string, sessionId: string): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}/recording?workspace=${encodeURIComponent(workspace)}`;
}

type Trouble = { kind: "processing"; retryMs: number } | { kind: "gone" } | { kind: "broken"; message: string };

/**
 * The recording, played with the browser's own controls (keyboard, captions of time, full screen).
 * `onTime` hears the position in seconds: every frame while it plays (the timeline's playhead moves
 * smoothly), and on every seek. A load that fails is asked about once over fetch, because a media
 * error says nothing of why: 409 means still processing (tried again after Retry-After), 404 gone.
 */
export function Player({
  src,
  info,
  live,
  label,
  videoRef,
  onTime,
}: {
  src: string;
  /** null: the session was recorded, but the recording is no more (deleted, or past its retention). */
  info: RecordingInfo | null;
  live: boolean;
  label: string;
  videoRef: RefObject<HTMLVideoElement | null>;
  onTime: (seconds: number) => void;
}) {
  const [trouble, setTrouble] = useState<Trouble | undefined>();
  const [attempt, setAttempt] = useState(0);
  const onTimeRef = useRef(onTime);
  onTimeRef.current = onTime;
  const ready = info?.status === "READY" && !live;

  useEffect(() => {
    const video = videoRef.current;
    if (!video || !ready) return;
    let frame = 0;
    const tell = () => onTimeRef.current(video.currentTime);
    const tick = () => {
      tell();
      frame = requestAnimationFrame(tick);
    };
    const play = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(tick);
    };
    const halt = () => {
      cancelAnimationFrame(frame);
      tell();
    };
    video.addEventListener("play", play);
    video.addEventListener("pause", halt);
    video.addEventListener("ended", halt);
    video.addEventListener("seeked", tell);
    video.addEventListener("loadedmetadata", tell);
    return () => {
      cancelAnimationFrame(frame);
      video.removeEventListener("play", play);
      video.removeEventListener("pause", halt);
      video.removeEventListener("ended", halt);
      video.removeEventListener("seeked", tell);
      video.removeEventListener("loadedmetadata", tell);
    };
  }, [videoRef, ready, attempt]);

  useEffect(() => {
    if (trouble?.kind !== "processing") return;
    const timer = setTimeout(() => {
      setTrouble(undefined);
      setAttempt((n) => n + 1);
    }, trouble.retryMs);
    return () => clearTimeout(timer);
  }, [trouble]);

  const explain = async () => {
    try {
      const res = await fetch(src, { headers: { range: "bytes=0-0" }, credentials: "same-origin" });
      await res.body?.cancel();
      if (res.status === 409) setTrouble({ kind: "processing", retryMs: Math.min(30, Math.max(1, Number(res.headers.get("retry-after")) || 3)) * 1000 });
      else if (res.status === 404) setTrouble({ kind: "gone" });
      else setTrouble({ kind: "broken", message: res.ok ? "This browser cannot play the video." : `The server answered ${res.status}.` });
    } catch {
      setTrouble({ kind: "broken", message: "Vessel could not be reached." });
    }
  };

  if (live) {
    return <PlayerNote>Recording. The video can be played here once the session has ended.</PlayerNote>;
  }
  if (!info || trouble?.kind === "gone") return <PlayerNote>The recording is gone: deleted, or past its retention.</PlayerNote>;
  if (info.status === "FAILED")
    return <PlayerNote tone="error">The recording failed{info.failure ? ` (${info.failure})` : ""}, so there is no video of this session.</PlayerNote>;
  // Still RECORDING after the end: the node is closing the file, which is processing too as far as anyone watching can tell.
  if (info.status === "PROCESSING" || info.status === "RECORDING" || trouble?.kind === "processing") {
    return (
      <PlayerNote>
        <Spinner /> Processing the recording… it plays here as soon as it is ready.
      </PlayerNote>
    );
  }

  return (
    <div className="player">
      <div className="player-frame" style={info.width && info.height ? ({ "--ratio": `${info.width} / ${info.height}` } as CSSProperties) : undefined}>
        <video
          key={attempt}
          ref={videoRef}
          src={attempt > 0 ? `${src}&attempt=${attempt}` : src}
          controls
          playsInline
          preload="metadata"
          aria-label={label}
          onError={() => void explain()}
        />
      </div>
      {trouble?.kind === "broken" ? <p className="player-meta danger-text">The video did not load. {trouble.message}</p> : null}
      <p className="player-meta muted small">
        {[
          info.durationMs ? formatDuration(info.durationMs) : "",
          info.sizeBytes ? formatBytes(info.sizeBytes) : "",
          info.expiresAt ? `kept until ${formatDateTime(info.expiresAt)}` : "",
        ]
          .filter(Boolean)
          .join(" · ")}
        {" · "}
        <a href={src} download>
          Download
        </a>
      </p>
    </div>
  );
}

function PlayerNote({ tone, children }: { tone?: "error"; children: ReactNode }) {
  return (
    <div className={`player-note${tone === "error" ? " is-error" : ""}`} role="status">
      {children}
    </div>
  );
}
