"""Sessions: start, read, list, keep alive, release, and wait for a person's Done in the live view."""

from __future__ import annotations

import builtins
import os
import time
import uuid
from typing import Any, Iterator, Mapping, Sequence, Unpack, overload
from urllib.parse import quote

from ._http import Transport
from ._models import CreateSessionOptions, Download, Session, SessionEvent, SessionFile, SessionLogEntry, SessionStatus
from ._pages import Page, all_pages
from .session_data import bundle, recording, recording_to_file, session_files, session_logs, upload_file
from .errors import QueueTimeoutError, VesselError, VesselTimeoutError

_LIVE = ("QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE")


def _path_id(value: str) -> str:
    # Ids are ASCII tokens; quoting keeps a stray "/" or "?" from changing the route.
    return quote(value, safe="")


class Sessions:
    """``vessel.sessions``: the TypeScript client's ``Sessions``, method for method (snake_case)."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def create(
        self, region: str, *, wait_seconds: float = 60, queue_timeout: int | None = None, **options: Unpack[CreateSessionOptions]
    ) -> Session:
        """Starts a session and returns it once RUNNING (with ``connect_url`` and ``live_view_url``).

        Every attempt carries the same Idempotency-Key, so a retry after a 503 or a lost answer can
        never start a second browser. The keyword options are the API's own (``CreateSessionOptions``,
        generated from it): ``live_view`` is ``{"interactive": bool, "instructions": str}``;
        ``metadata`` your own labels, which ``list(metadata=…)`` filters by; ``browser`` the viewport, user
        agent, locale, time zone and geolocation of every tab (``{"viewport": {"width": 1280, "height": 800}}``);
        ``extension_ids`` extensions from ``vessel.extensions.upload`` (full Chromium only). An option
        given as None or empty is left out, as not given.

        ``queue_timeout`` (seconds, 0–3600; sent as ``queue_timeout_seconds``): with no free browser, wait
        in the server's admission queue this long; returns once the session is RUNNING, or raises
        ``QueueTimeoutError`` when it ended waiting (``queue_timeout``).
        """
        unknown = sorted(set(options) - set(CreateSessionOptions.__annotations__))
        if unknown:
            raise TypeError(f"create() got unexpected keyword arguments: {', '.join(unknown)}")
        body: dict[str, Any] = {"region": region}
        if queue_timeout is not None:
            body["queue_timeout_seconds"] = queue_timeout
        for name, value in options.items():
            if value is None or (isinstance(value, (str, Mapping, Sequence)) and len(value) == 0):
                continue
            body[name] = dict(value) if isinstance(value, Mapping) else list(value) if isinstance(value, Sequence) and not isinstance(value, str) else value
        key = str(uuid.uuid4())
        session = Session.from_wire(self._http.json("POST", "/v1/sessions", body=body, headers={"Idempotency-Key": key}))
        if session.status == "RUNNING":
            return session
        return self._wait_until_running(session.id, wait_seconds + int(body.get("queue_timeout_seconds") or 0))

    def _wait_until_running(self, session_id: str, seconds: float) -> Session:
        until = time.monotonic() + seconds
        delay = 0.1
        while True:
            session = self.get(session_id)
            if session.status == "RUNNING":
                return session
            if session.end_reason == "queue_timeout":
                raise QueueTimeoutError(f"Session {session_id} waited in the queue past its queue timeout without a browser freeing.", session)
            if session.status not in _LIVE:
                raise VesselError(f"Session {session_id} ended ({session.status}) before it was running.")
            if time.monotonic() + delay > until:
                raise VesselTimeoutError(f"Session {session_id} was not running after {round(seconds)} s.")
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    def get(self, session_id: str) -> Session:
        return Session.from_wire(self._http.json("GET", f"/v1/sessions/{_path_id(session_id)}"))

    def list_page(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        status: SessionStatus | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> Page[Session]:
        """One page of the workspace's sessions (``metadata``: only those carrying every one of these labels)."""
        query = {"limit": limit, "cursor": cursor, "status": status, "metadata": metadata}
        return Page.from_wire(self._http.json("GET", "/v1/sessions", query=query), Session.from_wire)

    def list(
        self, *, limit: int | None = None, status: SessionStatus | None = None, metadata: Mapping[str, str] | None = None
    ) -> Iterator[Session]:
        """Every session, page after page (``limit`` per page), in creation order: ``for s in vessel.sessions.list()``."""
        return all_pages(lambda cursor: self.list_page(limit=limit, cursor=cursor, status=status, metadata=metadata))

    def release(self, session_id: str) -> None:
        """Ends the session (idempotent)."""
        self._http.call("PATCH", f"/v1/sessions/{_path_id(session_id)}", body={"status": "REQUEST_RELEASE"})

    def keepalive(self, session_id: str) -> Session:
        """Fresh ``connect_url`` and ``live_view_url``; also resets the idle countdown."""
        return Session.from_wire(self._http.json("POST", f"/v1/sessions/{_path_id(session_id)}:keepalive"))

    def events(
        self,
        session_id: str,
        *,
        after: str | None = None,
        types: Sequence[str] | None = None,
        limit: int | None = None,
        wait: int | None = None,
    ) -> Page[SessionEvent]:
        """One read of the session's events (with ``wait``, a long poll of up to 30 s)."""
        query = {"after": after, "type": ",".join(types) if types else None, "limit": limit, "wait": wait}
        data = self._http.json("GET", f"/v1/sessions/{_path_id(session_id)}/events", query=query, timeout=60 + (wait or 0))
        return Page.from_wire(data, SessionEvent.from_wire)

    def logs(
        self, session_id: str, *, types: Sequence[str] | None = None, after: int | None = None, follow: bool = False
    ) -> Iterator[SessionLogEntry]:
        """The session's log entries in order (``types``: console, page_error, navigation, network, cdp).

        With ``follow``, long-polls until the session has ended and its last entries are read.
        """
        return session_logs(self._http, f"/v1/sessions/{_path_id(session_id)}", types=types, after=after, follow=follow)

    @overload
    def download_recording(self, session_id: str, *, wait_seconds: float = 120) -> bytes: ...
    @overload
    def download_recording(self, session_id: str, *, to: str | os.PathLike[str], wait_seconds: float = 120) -> int: ...
    def download_recording(
        self, session_id: str, *, to: str | os.PathLike[str] | None = None, wait_seconds: float = 120
    ) -> bytes | int:
        """The session's recording (MP4) once it has ended and its video is stored, waiting while it is
        being made (``wait_seconds``; then ``VesselTimeoutError``): its bytes, or written to ``to`` (its size).
        """
        path = f"/v1/sessions/{_path_id(session_id)}"
        if to is not None:
            return recording_to_file(self._http, path, session_id, wait_seconds, to)
        return recording(self._http, path, session_id, wait_seconds, None)

    def delete_recording(self, session_id: str) -> None:
        """Deletes the session's recording and its key (``NotFoundError`` when there is none)."""
        self._http.call("DELETE", f"/v1/sessions/{_path_id(session_id)}/recording")

    def har(self, session_id: str) -> dict[str, Any]:
        """The session's network log as HAR 1.2 (a dict): credential header and query values are ``[redacted]``."""
        result: dict[str, Any] = self._http.json("GET", f"/v1/sessions/{_path_id(session_id)}/har", timeout=120)
        return result

    @overload
    def bundle(self, session_id: str, *, wait_seconds: float = 120) -> bytes: ...
    @overload
    def bundle(self, session_id: str, *, to: str | os.PathLike[str], wait_seconds: float = 120) -> int: ...
    def bundle(self, session_id: str, *, to: str | os.PathLike[str] | None = None, wait_seconds: float = 120) -> bytes | int:
        """The session's evidence bundle (zip: session.json, events.json, logs.ndjson, session.har, recording.mp4),
        waiting while its video is written (``wait_seconds``; then ``VesselTimeoutError``): its bytes, or written to ``to`` (its size).
        """
        return bundle(self._http, f"/v1/sessions/{_path_id(session_id)}", session_id, wait_seconds, to)

    def upload_file(self, session_id: str, data: bytes, name: str) -> SessionFile:
        """Puts a file into the running session's folder; give its ``path`` to Playwright's ``set_input_files``."""
        return upload_file(self._http, f"/v1/sessions/{_path_id(session_id)}", data, name)

    def files(self, session_id: str) -> builtins.list[SessionFile]:
        """The files uploaded into the session (the list outlives the session; the files do not)."""
        return session_files(self._http, f"/v1/sessions/{_path_id(session_id)}")

    def downloads(self, session_id: str) -> builtins.list[Download]:
        """The files the session's pages downloaded (the list outlives the session; the files do not)."""
        data = self._http.json("GET", f"/v1/sessions/{_path_id(session_id)}/downloads")
        return [Download.from_wire(item) for item in data["items"]]

    def download(self, session_id: str, download_id: str) -> bytes:
        """A finished download's bytes, while the session runs."""
        path = f"/v1/sessions/{_path_id(session_id)}/downloads/{_path_id(download_id)}"
        return self._http.call("GET", path, timeout=300).body

    def wait_for_live_view_done(self, session_id: str, *, timeout_seconds: float, after: str | None = None) -> SessionEvent:
        """The first ``live_view.done`` event (a person clicked Done in the live view), by long polling.

        Raises ``VesselTimeoutError`` naming the session when ``timeout_seconds`` run out, or
        ``VesselError`` when the session ends first.
        """
        until = time.monotonic() + timeout_seconds
        while True:
            remaining = int(-(-(until - time.monotonic()) // 1))  # ceil: a partial second still gets a poll
            if remaining <= 0:
                raise VesselTimeoutError(
                    f"No one clicked Done in the live view of session {session_id} within {_seconds(timeout_seconds)} s."
                )
            page = self.events(session_id, types=["live_view.done"], wait=min(30, remaining), after=after)
            if page.items:
                return page.items[0]
            after = page.next_cursor or after
            # An empty answer before the wait ran out means the session ended.
            session = self.get(session_id)
            if session.status not in _LIVE:
                raise VesselError(f"Session {session_id} ended ({session.status}) before anyone clicked Done.")


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
