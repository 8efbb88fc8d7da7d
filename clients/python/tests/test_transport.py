"""The retry policy's timing and the client's own decisions, against a local standard-library HTTP server.

The server scenarios (test_scenarios.py) prove the behaviour end to end; waiting out a real
``Retry-After`` of a minute there would be too slow, so its arithmetic is checked here with a
recorded ``sleep`` instead of the clock.
"""

from __future__ import annotations

import json
import os
import threading
import unittest
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

import vessel
from vessel._http import Retry, Transport, parse_retry_after


class Scripted(BaseHTTPRequestHandler):
    """Answers from a script of (status, headers, body) in order; records each request."""

    script: list[tuple[int, dict[str, str], bytes]] = []
    seen: list[dict[str, Any]] = []

    def do_GET(self) -> None:  # noqa: N802 - the standard library's naming
        self._answer()

    def do_POST(self) -> None:  # noqa: N802
        self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).seen.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
        status, headers, payload = type(self).script.pop(0)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


def problem(slug: str, status: int) -> bytes:
    return json.dumps({"type": f"http://x/errors/{slug}", "title": slug, "status": status, "detail": slug, "instance": "/"}).encode()


class TransportTests(unittest.TestCase):
    def setUp(self) -> None:
        Scripted.script, Scripted.seen = [], []
        self.server: ThreadingHTTPServer | None = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.slept: list[float] = []

    def tearDown(self) -> None:
        self.stop()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def transport(self, **retry: Any) -> Transport:
        return Transport(self.url, "vs_test.key", Retry(**retry), sleep=self.slept.append)

    def test_waits_at_least_retry_after_then_succeeds(self) -> None:
        Scripted.script = [(429, {"Retry-After": "3"}, problem("rate-limited", 429)), (200, {}, b'{"ok": true}')]
        self.assertEqual(self.transport().json("GET", "/v1/sessions"), {"ok": True})
        self.assertEqual(len(self.slept), 1)
        self.assertGreaterEqual(self.slept[0], 3)
        self.assertEqual(Scripted.seen[0]["headers"]["Authorization"], "Bearer vs_test.key")

    def test_gives_up_when_retry_after_exceeds_the_budget(self) -> None:
        Scripted.script = [(429, {"Retry-After": "60"}, problem("rate-limited", 429))]
        with self.assertRaises(vessel.RateLimitError) as caught:
            self.transport(max_elapsed_seconds=2).call("GET", "/v1/sessions")
        self.assertEqual(caught.exception.retry_after, 60)
        self.assertEqual((self.slept, len(Scripted.seen)), ([], 1))

    def test_retries_5xx_with_growing_jittered_backoff_up_to_max_attempts(self) -> None:
        Scripted.script = [(500, {}, b"boom")] * 4
        with self.assertRaises(vessel.ServerError) as caught:
            self.transport(max_attempts=4, base_delay_seconds=1, max_delay_seconds=2.5).call("POST", "/v1/sessions", body={})
        self.assertEqual((len(Scripted.seen), caught.exception.status, caught.exception.slug), (4, 500, "unknown"))
        self.assertEqual(len(self.slept), 3)
        for delay, cap in zip(self.slept, [1, 2, 2.5]):
            self.assertTrue(0 <= delay <= cap, (delay, cap))

    def test_does_not_retry_a_refusal(self) -> None:
        Scripted.script = [(404, {}, problem("not-found", 404))]
        with self.assertRaises(vessel.NotFoundError):
            self.transport().call("GET", "/v1/sessions/x")
        self.assertEqual((len(Scripted.seen), self.slept), (1, []))

    def test_retries_an_idempotency_key_in_use(self) -> None:
        Scripted.script = [(409, {"Retry-After": "1"}, problem("idempotency-key-in-use", 409)), (201, {}, b"{}")]
        self.transport().call("POST", "/v1/sessions", body={}, headers={"Idempotency-Key": "k"})
        self.assertEqual([s["headers"]["Idempotency-Key"] for s in Scripted.seen], ["k", "k"])

    def test_a_network_failure_is_a_vessel_error_after_the_attempts(self) -> None:
        self.stop()
        with self.assertRaises(vessel.VesselError) as caught:
            self.transport(max_attempts=2).call("GET", "/v1/sessions")
        self.assertIn("Could not reach", str(caught.exception))
        self.assertEqual(len(self.slept), 1)


class DecisionTests(unittest.TestCase):
    def test_retry_after_forms(self) -> None:
        self.assertEqual(parse_retry_after("5"), 5)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after("-1"))
        in_ten = parse_retry_after(formatdate(1_000_010, usegmt=True), now=1_000_000)
        self.assertEqual(in_ten, 10)

    def test_each_problem_has_its_class(self) -> None:
        cases = {
            ("unauthenticated", 401): vessel.AuthenticationError, ("forbidden", 403): vessel.PermissionDeniedError,
            ("not-found", 404): vessel.NotFoundError, ("validation-failed", 400): vessel.ValidationError,
            ("malformed-json", 400): vessel.ValidationError, ("unknown-region", 422): vessel.UnknownRegionError,
            ("rate-limited", 429): vessel.RateLimitError, ("workspace-session-limit", 429): vessel.RateLimitError,
            ("insufficient-capacity", 503): vessel.InsufficientCapacityError, ("idempotency-key-reused", 422): vessel.IdempotencyError,
            ("service-unavailable", 503): vessel.ServerError, ("conflict", 409): vessel.VesselApiError,
        }
        for (slug, status), cls in cases.items():
            error = vessel.errors.error_for(status, json.loads(problem(slug, status)), None)
            self.assertIs(type(error), cls, slug)
            self.assertEqual((error.slug, error.status), (slug, status))
        self.assertTrue(issubclass(vessel.VesselTimeoutError, TimeoutError))

    def test_reads_the_environment_and_never_shows_the_key(self) -> None:
        with mock.patch.dict(os.environ, {"VESSEL_API_KEY": "vs_env.secret", "VESSEL_BASE_URL": "http://vessel.test:9/"}):
            client = vessel.Vessel()
            self.assertEqual(client.base_url, "http://vessel.test:9")
            self.assertNotIn("secret", repr(client))
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaises(vessel.VesselError):
                vessel.Vessel()
            self.assertEqual(vessel.Vessel(api_key="k").base_url, "http://localhost:8080")

    def test_resources_ignore_fields_a_newer_server_adds(self) -> None:
        wire = {
            "profile_id": "prof_1", "label": "l", "source_session_id": None, "format_version": 1, "size_bytes": 2,
            "cookie_count": 0, "origin_count": 0, "key_count": 0, "created_at": "t", "updated_at": "t", "added_later": True,
        }
        self.assertEqual(vessel.Profile.from_wire(wire).profile_id, "prof_1")


if __name__ == "__main__":
    unittest.main()
