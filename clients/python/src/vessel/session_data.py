"""What a session leaves besides its events: its log entries.

The TypeScript client's ``sessions.logs`` (session-logs.ts), reached as ``vessel.sessions.logs``.
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ._http import Transport
from ._models import Session, SessionLogEntry

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
