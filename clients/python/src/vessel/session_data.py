"""What a session leaves besides its events: its log entries, its recording, the files uploaded into it.

The TypeScript client's session-logs.ts, recordings.ts and session-files.ts, reached through
``vessel.sessions`` (``logs``, ``download_recording``, ``delete_recording``, ``upload_file``, ``files``,
``har``, ``bundle``).
"""

from __future__ import annotations

import os
import time
import uuid
from typing import BinaryIO, Iterator, Sequence

from ._http import RawBody, Transport
from ._models import Session, SessionFile, SessionLogEntry
from .errors import VesselApiError, VesselTimeoutError

_LIVE = ("PENDING", "RUNNING", "REQUEST_RELEASE")
#: What a long poll holds at most (the server's limit).
_WAIT_SECONDS = 30


def session_logs(
    http: Transport, path: str, *, types: Sequence[str] | None, after: int | None, follow: bool
) -> Iterator[SessionLogEntry]:
    """The entries of a session's log in order, page after page; with ``follow``, until the session has ended."""
    base = {"limit": 1000, "type": ",".join(types) if types else None}
    position: dict[str, object] = {"after": after} if after is not None else {}
    while True:
        wait = _WAIT_SECONDS if follow else 0
        page = http.json("GET", f"{path}/logs", query={**base, **position, "wait": wait}, timeout=60 + wait)
        for item in page["items"]:
            yield SessionLogEntry.from_wire(item)
        if page.get("next_cursor"):
            position = {"cursor": page["next_cursor"]}
        if page.get("has_more"):
            continue
        if not follow:
            return
        # An empty answer to a long poll: the wait ran out, or the session's log has ended.
        if not page["items"] and Session.from_wire(http.json("GET", path)).status not in _LIVE:
            return


def _when_ready(http: Transport, url: str, what: str, wait_seconds: float, sink: BinaryIO | None) -> bytes:
    """GET ``url``, waiting while the session's video is still being made (409 ``recording-not-ready``) as its ``Retry-After`` says."""
    until = time.monotonic() + wait_seconds
    while True:
        try:
            return http.call("GET", url, timeout=600, sink=sink).body
        except VesselApiError as refused:
            if refused.slug != "recording-not-ready":
                raise
            delay = min(10.0, max(1.0, refused.retry_after or 2.0))
            if time.monotonic() + delay > until:
                raise VesselTimeoutError(f"The {what} was not ready within {wait_seconds:g} s.") from None
            time.sleep(delay)


def recording(http: Transport, path: str, session_id: str, wait_seconds: float, sink: BinaryIO | None) -> bytes:
    """The MP4, waiting while it is still being made (409 ``recording-not-ready``) as its ``Retry-After`` says."""
    return _when_ready(http, f"{path}/recording", f"recording of session {session_id}", wait_seconds, sink)


def recording_to_file(http: Transport, path: str, session_id: str, wait_seconds: float, to: str | os.PathLike[str]) -> int:
    with open(to, "wb") as sink:
        recording(http, path, session_id, wait_seconds, sink)
        return sink.tell()


def bundle(http: Transport, path: str, session_id: str, wait_seconds: float, to: str | os.PathLike[str] | None) -> bytes | int:
    """The evidence bundle (zip), waiting while the session's video is written: its bytes, or written to ``to`` (its size)."""
    what = f"bundle of session {session_id} (its recording is being written)"
    if to is None:
        return _when_ready(http, f"{path}/bundle", what, wait_seconds, None)
    with open(to, "wb") as sink:
        _when_ready(http, f"{path}/bundle", what, wait_seconds, sink)
        return sink.tell()


def upload_file(http: Transport, path: str, data: bytes, name: str) -> SessionFile:
    """POST …/files as multipart/form-data, field ``file``, named ``name``."""
    boundary = f"vessel-{uuid.uuid4().hex}"
    # Quotes and line breaks cannot stand in a quoted header value; browsers percent-encode them too.
    safe = name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{safe}\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    body = RawBody(head + bytes(data) + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}")
    return SessionFile.from_wire(http.json("POST", f"{path}/files", body=body, timeout=300))


def session_files(http: Transport, path: str) -> list[SessionFile]:
    return [SessionFile.from_wire(item) for item in http.json("GET", f"{path}/files")["items"]]
