"""The entry point: ``Vessel()`` reads ``VESSEL_API_KEY`` and ``VESSEL_BASE_URL`` like the TypeScript client."""

from __future__ import annotations

import os

from ._http import Retry, Transport
from .errors import VesselError
from .extensions import Extensions
from .credentials import Credentials
from .profiles import Profiles
from .sessions import Sessions


class Vessel:
    """The Vessel API from Python.

    Every call retries what may succeed later — 429 (after its ``Retry-After``), 503, other 5xx and
    network failures — with exponential backoff and jitter, within a bounded total time; creating a
    session sends one Idempotency-Key for all its attempts, so a retry can never start a second browser.
    """

    def __init__(self, api_key: str | None = None, base_url: str | None = None, *, retry: Retry | None = None) -> None:
        key = api_key if api_key is not None else os.environ.get("VESSEL_API_KEY")
        if not key:
            raise VesselError("No API key: pass api_key or set VESSEL_API_KEY.")
        url = base_url if base_url is not None else os.environ.get("VESSEL_BASE_URL") or "http://localhost:8080"
        self.base_url = url.rstrip("/")
        self._transport = Transport(self.base_url, key, retry or Retry())
        self.sessions = Sessions(self._transport)
        self.profiles = Profiles(self._transport)
        self.credentials = Credentials(self._transport)
        self.extensions = Extensions(self._transport)

    def __repr__(self) -> str:
        # Never the key: a repr ends up in logs and tracebacks.
        return f"Vessel(base_url={self.base_url!r})"
