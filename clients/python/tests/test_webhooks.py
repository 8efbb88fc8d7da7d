"""verify_webhook against signatures made here with hmac from the Standard Webhooks text."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import unittest

from vessel import WebhookVerificationError, verify_webhook

NOW = 1_800_000_000
BODY = json.dumps({"type": "live_view.done", "timestamp": "2027-01-15T08:00:00.000Z", "data": {"session_id": "ses_1"}})


def secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


def sign(s: str, msg_id: str, ts: int, body: str) -> str:
    key = base64.b64decode(s.removeprefix("whsec_"))
    return "v1," + base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.{body}".encode(), hashlib.sha256).digest()).decode()


def headers(signature: str, ts: int = NOW, msg_id: str = "msg_01J") -> dict[str, str]:
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": signature}


class VerifyWebhookTest(unittest.TestCase):
    def test_accepts_a_valid_delivery_and_answers_its_event(self) -> None:
        s = secret()
        event = verify_webhook(s, headers(sign(s, "msg_01J", NOW, BODY)), BODY.encode(), now=NOW)
        self.assertEqual(event["type"], "live_view.done")

    def test_accepts_either_secret_during_a_rotation(self) -> None:
        old, new = secret(), secret()
        both = headers(f"{sign(new, 'msg_01J', NOW, BODY)} {sign(old, 'msg_01J', NOW, BODY)}")
        for s in (old, new):
            self.assertEqual(verify_webhook(s, both, BODY, now=NOW)["data"], {"session_id": "ses_1"})

    def test_reads_headers_whatever_their_case(self) -> None:
        s = secret()
        upper = {k.upper(): v for k, v in headers(sign(s, "msg_01J", NOW, BODY)).items()}
        self.assertEqual(verify_webhook(s, upper, BODY, now=NOW)["type"], "live_view.done")

    def test_refuses_what_does_not_check_out(self) -> None:
        s = secret()
        good = sign(s, "msg_01J", NOW, BODY)
        cases = [
            (secret(), headers(good), BODY),
            (s, headers(good), BODY.replace("ses_1", "ses_2")),
            (s, headers(sign(s, "msg_01J", NOW - 301, BODY), NOW - 301), BODY),
            (s, headers(sign(s, "msg_01J", NOW + 301, BODY), NOW + 301), BODY),
            (s, headers(good.replace("v1,", "v2,")), BODY),
            (s, {"webhook-id": "msg_01J", "webhook-timestamp": str(NOW)}, BODY),
        ]
        for key, hdrs, body in cases:
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(key, hdrs, body, now=NOW)


if __name__ == "__main__":
    unittest.main()
