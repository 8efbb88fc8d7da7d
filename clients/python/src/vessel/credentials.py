"""Credentials: logins the server fills into sessions for the agent; their secrets never come back."""

from __future__ import annotations

from typing import Any, Iterator

from ._http import Transport
from ._models import Credential, CredentialFill
from ._pages import Page, all_pages
from .sessions import _path_id

_KEEP: Any = object()


class Credentials:
    """``vessel.credentials``: the TypeScript client's ``Credentials``, method for method (snake_case)."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def create(self, name: str, origins: list[str], username: str, password: str, *, totp_secret: str | None = None) -> Credential:
        """Stores a login (API keys need the scope ``credentials:manage``). The secrets are write-only."""
        body: dict[str, Any] = {"name": name, "origins": list(origins), "username": username, "password": password}
        if totp_secret is not None:
            body["totp_secret"] = totp_secret
        return Credential.from_wire(self._http.json("POST", "/v1/credentials", body=body))

    def get(self, credential_id: str) -> Credential:
        return Credential.from_wire(self._http.json("GET", f"/v1/credentials/{_path_id(credential_id)}"))

    def list_page(self, *, limit: int | None = None, cursor: str | None = None) -> Page[Credential]:
        return Page.from_wire(self._http.json("GET", "/v1/credentials", query={"limit": limit, "cursor": cursor}), Credential.from_wire)

    def list(self, *, limit: int | None = None) -> Iterator[Credential]:
        """Every credential of the workspace, page after page (``limit`` per page)."""
        return all_pages(lambda cursor: self.list_page(limit=limit, cursor=cursor))

    def update(
        self,
        credential_id: str,
        *,
        name: str | None = None,
        origins: list[str] | None = None,
        username: str | None = None,
        password: str | None = None,
        totp_secret: Any = _KEEP,
    ) -> Credential:
        """Renames it, changes its origins or replaces secrets; ``totp_secret=None`` removes the TOTP secret."""
        body: dict[str, Any] = {}
        for key, value in (("name", name), ("origins", origins), ("username", username), ("password", password)):
            if value is not None:
                body[key] = value
        if totp_secret is not _KEEP:
            body["totp_secret"] = totp_secret
        return Credential.from_wire(self._http.json("PATCH", f"/v1/credentials/{_path_id(credential_id)}", body=body))

    def delete(self, credential_id: str) -> None:
        self._http.call("DELETE", f"/v1/credentials/{_path_id(credential_id)}")

    def fill(
        self,
        session_id: str,
        credential_id: str,
        *,
        submit: bool = False,
        username_selector: str | None = None,
        password_selector: str | None = None,
        totp_selector: str | None = None,
    ) -> CredentialFill:
        """Fills the credential into the session's active tab, typed by the server (API keys need ``credentials:use``)."""
        body: dict[str, Any] = {"submit": submit}
        for key, value in (("username_selector", username_selector), ("password_selector", password_selector), ("totp_selector", totp_selector)):
            if value is not None:
                body[key] = value
        path = f"/v1/sessions/{_path_id(session_id)}/credentials/{_path_id(credential_id)}/fill"
        return CredentialFill.from_wire(self._http.json("POST", path, body=body))
