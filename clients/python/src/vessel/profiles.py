"""Profiles: saved logins (cookies, localStorage, sessionStorage) to start sessions from."""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ._http import Transport
from ._models import Profile
from ._pages import Page, all_pages
from .sessions import _path_id


class Profiles:
    """``vessel.profiles``: the TypeScript client's ``Profiles``, method for method (snake_case)."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def create(self, label: str, *, session_id: str | None = None, storage_state: Mapping[str, Any] | None = None) -> Profile:
        """Saves a running session's logins (``session_id``) or imports a Playwright ``storage_state`` dict."""
        if (session_id is None) == (storage_state is None):
            raise TypeError("Pass exactly one of session_id and storage_state.")
        body: dict[str, Any] = {"label": label}
        if session_id is not None:
            body["session_id"] = session_id
        else:
            body["storage_state"] = dict(storage_state or {})
        return Profile.from_wire(self._http.json("POST", "/v1/profiles", body=body))

    def save(self, profile_id: str, session_id: str) -> Profile:
        """Replaces a profile's saved state with a running session's, keeping its id."""
        data = self._http.json("POST", f"/v1/profiles/{_path_id(profile_id)}:save", body={"session_id": session_id})
        return Profile.from_wire(data)

    def get(self, profile_id: str) -> Profile:
        return Profile.from_wire(self._http.json("GET", f"/v1/profiles/{_path_id(profile_id)}"))

    def list_page(self, *, limit: int | None = None, cursor: str | None = None) -> Page[Profile]:
        return Page.from_wire(self._http.json("GET", "/v1/profiles", query={"limit": limit, "cursor": cursor}), Profile.from_wire)

    def list(self, *, limit: int | None = None) -> Iterator[Profile]:
        """Every profile of the workspace, page after page (``limit`` per page)."""
        return all_pages(lambda cursor: self.list_page(limit=limit, cursor=cursor))

    def delete(self, profile_id: str) -> None:
        self._http.call("DELETE", f"/v1/profiles/{_path_id(profile_id)}")

    def export_storage_state(self, profile_id: str) -> dict[str, Any]:
        """The saved logins in Playwright's ``storage_state`` shape (``browser.new_context(storage_state=…)``). Audited."""
        data: dict[str, Any] = self._http.json("GET", f"/v1/profiles/{_path_id(profile_id)}/storage-state")
        return data
