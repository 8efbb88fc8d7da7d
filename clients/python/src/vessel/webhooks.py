"""Checking a webhook Vessel sent (Standard Webhooks).

``webhook-signature`` holds one or more space-separated ``v1,<base64 HMAC-SHA256>`` over
``"{webhook-id}.{webhook-timestamp}.{body}"``, keyed by the secret's decoded bytes (``whsec_<base64>``);
during a rotation there are two, and either may match. The timestamp must be within 5 minutes of now,
so a captured request cannot be replayed later. Pass the body exactly as received (bytes).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import VesselError

__all__ = ["WebhookVerificationError", "verify_webhook"]


class WebhookVerificationError(VesselError):
    """The delivery's signature or timestamp does not check out: answer it 400 and ignore it."""


def _header(headers: Mapping[str, str] | Any, name: str) -> str | None:
    getter = getattr(headers, "get", None)
    value = getter(name) if getter else None
    if value is None and isinstance(headers, Mapping):
        for key, v in headers.items():
            if str(key).lower() == name:
                value = v
                break
    return None if value is None else str(value)


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError) as err:
        raise WebhookVerificationError("the secret is not whsec_<base64>") from err


def verify_webhook(
    secret: str | Iterable[str],
    headers: Mapping[str, str] | Any,
    body: bytes | str,
    *,
    tolerance_seconds: int = 300,
    now: float | None = None,
) -> dict[str, Any]:
    """The delivery's event ``{"type", "timestamp", "data"}`` once it checks out; raises WebhookVerificationError otherwise."""
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not timestamp.isdigit() or len(timestamp) > 12:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError("webhook-timestamp is too far from now")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    offered: list[bytes] = []
    for part in signatures.split(" "):
        version, _, value = part.partition(",")
        if version == "v1" and value:
            try:
                offered.append(base64.b64decode(value, validate=True))
            except (binascii.Error, ValueError):
                continue
    secrets = [secret] if isinstance(secret, str) else list(secret)
    matched = False
    for s in secrets:
        expected = hmac.new(_key(s), msg_id.encode() + b"." + timestamp.encode() + b"." + raw, hashlib.sha256).digest()
        # Every candidate is compared in full (no early exit), each in constant time.
        for candidate in offered:
            if hmac.compare_digest(candidate, expected):
                matched = True
    if not matched:
        raise WebhookVerificationError("no webhook-signature matches the secret")
    try:
        event = json.loads(raw)
    except ValueError as err:
        raise WebhookVerificationError("the body is not JSON") from err
    if not isinstance(event, dict):
        raise WebhookVerificationError("the body is not a JSON object")
    return event
