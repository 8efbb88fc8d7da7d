"""Extensions: the workspace's Manifest V3 extensions, loaded into sessions by ``extension_ids`` (full Chromium only)."""

from __future__ import annotations

from ._http import RawBody, Transport
from ._models import Extension
from .sessions import _path_id


class Extensions:
    """``vessel.extensions``: the TypeScript client's ``Extensions``, method for method."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def upload(self, zip_bytes: bytes) -> Extension:
        """Uploads a zip of an unpacked Manifest V3 extension (at most 16 MiB); the zip is the body itself."""
        body = RawBody(bytes(zip_bytes), "application/zip")
        return Extension.from_wire(self._http.json("POST", "/v1/extensions", body=body, timeout=300))

    def list(self) -> list[Extension]:
        return [Extension.from_wire(item) for item in self._http.json("GET", "/v1/extensions")["items"]]

    def get(self, extension_id: str) -> Extension:
        return Extension.from_wire(self._http.json("GET", f"/v1/extensions/{_path_id(extension_id)}"))

    def delete(self, extension_id: str) -> None:
        """Deletes it and its key; sessions running with it keep it until they end."""
        self._http.call("DELETE", f"/v1/extensions/{_path_id(extension_id)}")
