"""Everything the client raises, typed by the API's problem documents (RFC 9457).

The classes and their mapping mirror the TypeScript client's (clients/typescript, errors.ts) so both
clients tell the same failures apart. Where a TypeScript name would shadow a Python built-in, the
Python class also derives from that built-in (``VesselTimeoutError`` is a ``TimeoutError``).
"""

from __future__ import annotations

from typing import Any, Mapping


class VesselError(Exception):
    """Anything the client library raises."""


class VesselApiError(VesselError):
    """The API answered with a problem; ``slug`` is the last part of its ``type`` (``rate-limited``, ``not-found``…)."""

    def __init__(self, status: int, problem: Mapping[str, Any], retry_after: float | None = None) -> None:
        self.status = status
        #: Seconds the server asked to wait (its ``Retry-After``), when it said.
        self.retry_after = retry_after
        self.problem: dict[str, Any] = dict(problem)
        type_uri = str(problem.get("type", "about:blank"))
        self.slug = type_uri.split("/errors/")[1] if "/errors/" in type_uri else "unknown"
        detail = problem.get("detail") or type_uri
        super().__init__(f"{problem.get('title', 'Error')} ({status}): {detail}")

    @property
    def request_id(self) -> str | None:
        """The reference the server log carries for this request."""
        value = self.problem.get("request_id")
        return value if isinstance(value, str) else None


class AuthenticationError(VesselApiError):
    """401: no valid API key."""


class PermissionDeniedError(VesselApiError):
    """403: the key is valid but may not do this (``PermissionError`` in TypeScript)."""


class NotFoundError(VesselApiError):
    """404: no such resource in this workspace."""


class ValidationError(VesselApiError):
    """The request was refused as invalid; ``field`` names the first offending field when there is one."""

    @property
    def field(self) -> str | None:
        errors = self.problem.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], Mapping):
            field = errors[0].get("field")
            return field if isinstance(field, str) else None
        return None


class UnknownRegionError(VesselApiError):
    """422: the deployment serves no such region."""


class RateLimitError(VesselApiError):
    """429: too many requests; ``retry_after`` is the seconds the server asked to wait, when it said."""

    def __init__(self, status: int, problem: Mapping[str, Any], retry_after: float | None) -> None:
        super().__init__(status, problem, retry_after)


class InsufficientCapacityError(VesselApiError):
    """503: no browser free in the region (retried before it is raised)."""


class IdempotencyError(VesselApiError):
    """An Idempotency-Key problem (missing, invalid, reused with another body, in use)."""


class ServerError(VesselApiError):
    """A 5xx answer that is none of the above."""


class VesselTimeoutError(VesselError, TimeoutError):
    """A wait (for a session to run, for a person to click Done) ran out (``TimeoutError`` in TypeScript)."""


class QueueTimeoutError(VesselTimeoutError):
    """A queued session (``queue_timeout``) ended TIMED_OUT ``queue_timeout``: no browser freed in time."""

    def __init__(self, message: str, session: Any) -> None:
        super().__init__(message)
        self.session = session


_VALIDATION = {"validation-failed", "malformed-json", "payload-too-large", "unsupported-media-type"}


def error_for(status: int, problem: Mapping[str, Any], retry_after: float | None) -> VesselApiError:
    """The typed error for a problem answer (the same decisions as the TypeScript client's ``errorFor``)."""
    type_uri = str(problem.get("type", ""))
    slug = type_uri.split("/errors/")[1] if "/errors/" in type_uri else ""
    if slug == "rate-limited" or status == 429:
        return RateLimitError(status, problem, retry_after)
    simple: dict[str, type[VesselApiError]] = {
        "unauthenticated": AuthenticationError,
        "forbidden": PermissionDeniedError,
        "not-found": NotFoundError,
        "unknown-region": UnknownRegionError,
        "insufficient-capacity": InsufficientCapacityError,
    }
    if slug in simple:
        return simple[slug](status, problem, retry_after)
    if slug.startswith("idempotency-key-"):
        return IdempotencyError(status, problem, retry_after)
    if slug in _VALIDATION:
        return ValidationError(status, problem, retry_after)
    if status >= 500:
        return ServerError(status, problem, retry_after)
    return VesselApiError(status, problem, retry_after)
