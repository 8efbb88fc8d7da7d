"""One API call with the retry policy, over the standard library's urllib (no third-party dependency).

Retries what may succeed later — 429 (after its ``Retry-After``), 503, other 5xx, an
``idempotency-key-in-use`` conflict and network failures — with exponential backoff and full jitter,
within a bounded number of attempts and total time: the same policy as the TypeScript client.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Mapping

from .errors import VesselApiError, VesselError, error_for

__all__ = ["RawBody", "Retry", "Transport", "parse_retry_after"]

USER_AGENT = "vessel-client-python/0.1.0"


@dataclass(frozen=True)
class Retry:
    """How hard a call tries (the TypeScript client's ``RetryOptions``, in seconds)."""

    #: Attempts in all, the first included.
    max_attempts: int = 6
    #: Never keep retrying past this long since the first attempt.
    max_elapsed_seconds: float = 60.0
    #: First backoff; doubles each time, with full jitter.
    base_delay_seconds: float = 0.25
    #: Longest single backoff.
    max_delay_seconds: float = 10.0


@dataclass(frozen=True)
class RawBody:
    """A request body sent as it is (a multipart upload), not as JSON."""

    raw: bytes
    content_type: str


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes


@dataclass
class _Outcome:
    answer: _Answer | None
    error: VesselError | None
    retryable: bool
    retry_after: float | None = None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one would resend the key to wherever it points."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Transport:
    """Speaks HTTP to one Vessel deployment with one API key."""

    def __init__(self, base_url: str, api_key: str, retry: Retry, sleep: Callable[[float], None] = time.sleep) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.retry = retry
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect())

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        sink: BinaryIO | None = None,
    ) -> _Answer:
        """Runs one API call with the retry policy: its answer, or the last typed error raised.

        With ``sink`` (a seekable binary file), a successful answer's body is copied into it instead of
        memory; each attempt starts the file over.
        """
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            outcome = self._once(method, path, query, body, headers or {}, timeout, sink)
            if outcome.answer is not None:
                return outcome.answer
            assert outcome.error is not None
            cap = min(self.retry.max_delay_seconds, self.retry.base_delay_seconds * 2 ** (attempt - 1))
            delay = max(random.random() * cap, outcome.retry_after or 0.0)
            elapsed = time.monotonic() - started
            if not outcome.retryable or attempt >= self.retry.max_attempts or elapsed + delay > self.retry.max_elapsed_seconds:
                raise outcome.error
            self._sleep(delay)

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        answer = self.call(method, path, **kwargs)
        return json.loads(answer.body) if answer.body else None

    def _once(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None,
        body: Any,
        headers: Mapping[str, str],
        timeout: float,
        sink: BinaryIO | None,
    ) -> _Outcome:
        url = f"{self.base_url}{path}"
        params: dict[str, str] = {}
        for name, value in (query or {}).items():
            if isinstance(value, Mapping):
                # OpenAPI deepObject style, as the server reads it: metadata[team]=qa.
                params.update({f"{name}[{k}]": _query_value(v) for k, v in value.items()})
            elif value is not None:
                params[name] = _query_value(value)
        if params:
            url += "?" + urllib.parse.urlencode(params)
        data = None if body is None else body.raw if isinstance(body, RawBody) else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self._api_key}")
        request.add_header("User-Agent", USER_AGENT)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", body.content_type if isinstance(body, RawBody) else "application/json")
        for name, value in headers.items():
            request.add_header(name, value)
        try:
            with self._opener.open(request, timeout=timeout) as response:
                if sink is None:
                    return _Outcome(_Answer(response.status, dict(response.headers.items()), response.read()), None, False)
                sink.seek(0)
                sink.truncate()
                shutil.copyfileobj(response, sink, 1 << 20)
                return _Outcome(_Answer(response.status, dict(response.headers.items()), b""), None, False)
        except urllib.error.HTTPError as refusal:
            with refusal:
                return self._refused(refusal.code, refusal.headers, refusal.read(), refusal.reason)
        except (http.client.HTTPException, OSError) as failure:
            # No answer at all (refused, reset, timed out): worth another try.
            reason = getattr(failure, "reason", None) or failure
            return _Outcome(None, VesselError(f"Could not reach {self.base_url}: {reason}"), True)

    def _refused(self, status: int, headers: Any, raw: bytes, reason: str) -> _Outcome:
        retry_after = parse_retry_after(headers.get("Retry-After") if headers else None)
        problem = _problem(raw)
        if problem is None:
            problem = {"type": "about:blank", "title": reason or "Error", "status": status, "detail": raw.decode("utf-8", "replace")[:500]}
        error: VesselApiError = error_for(status, problem, retry_after)
        retryable = status == 429 or status >= 500 or error.slug == "idempotency-key-in-use"
        return _Outcome(None, error, retryable, retry_after)


def _problem(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("type"), str) and isinstance(value.get("status"), int):
        return value
    return None


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
