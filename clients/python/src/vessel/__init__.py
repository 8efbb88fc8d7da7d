"""Vessel's Python client: sessions, events, the live-view hand-off, profiles and downloads over the REST API.

Standard library only. ``Vessel()`` reads ``VESSEL_API_KEY`` and ``VESSEL_BASE_URL``.
"""

from ._http import Retry
from ._models import Credential, CredentialFill, Download, Extension, Profile, Session, SessionEvent, SessionFile, SessionLiveView, SessionLogEntry
from ._pages import Page
from .client import Vessel
from .errors import (
    AuthenticationError,
    IdempotencyError,
    InsufficientCapacityError,
    NotFoundError,
    PermissionDeniedError,
    QueueTimeoutError,
    RateLimitError,
    ServerError,
    UnknownRegionError,
    ValidationError,
    VesselApiError,
    VesselError,
    VesselTimeoutError,
)
from .extensions import Extensions
from .credentials import Credentials
from .profiles import Profiles
from .sessions import Sessions
from .webhooks import WebhookVerificationError, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "AuthenticationError", "Credential", "CredentialFill", "Credentials", "Download", "Extension", "Extensions", "IdempotencyError", "InsufficientCapacityError", "NotFoundError", "Page",
    "PermissionDeniedError", "Profile", "Profiles", "QueueTimeoutError", "RateLimitError", "Retry", "ServerError", "Session", "SessionEvent", "SessionFile",
    "SessionLiveView", "SessionLogEntry", "Sessions", "UnknownRegionError", "ValidationError", "Vessel", "VesselApiError", "VesselError",
    "VesselTimeoutError", "WebhookVerificationError", "__version__", "verify_webhook",
]
