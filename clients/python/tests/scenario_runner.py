"""Runs clients/scenarios.json with the Python client: the same file the TypeScript client's runner
(test/support/scenario-runner.ts) follows, so both clients are held to the same behaviour.

The file's format is described in its ``about``. Harness actions go to the test harness the Node
test started (test/support/client-harness.ts): a proxy that fails or records, a real browser that
clicks Done, the workspace's session count.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import time
import urllib.request
from typing import Any, Callable

import vessel
from .cdp_socket import cdp_call

_MISSING = object()
# The scenario file names errors as the TypeScript client does; these two are spelt differently in Python.
_ERROR_NAMES = {"TimeoutError": "VesselTimeoutError", "PermissionError": "PermissionDeniedError"}


def harness(base: str, action: str, args: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"{base}/{action}", data=json.dumps(args or {}).encode(), method="POST", headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def plain(value: Any) -> Any:
    """Results as the wire has them: dataclasses become dicts, pages and lists keep their order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        wire = {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "fields"}
        # An open object's other fields (a log entry's) stand beside the common ones on the wire.
        return {**plain(getattr(value, "fields", {})), **wire}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return {"byte_length": len(value)}
    return value


def mismatches(expected: Any, actual: Any, path: str = "$") -> list[str]:
    """Every way ``actual`` fails ``expected`` (the matcher language of clients/scenarios.json)."""
    if isinstance(expected, dict) and any(k.startswith("$") for k in expected):
        return [m for op, arg in expected.items() for m in _operator(op, arg, actual, path)]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        return [m for k, v in expected.items() for m in mismatches(v, actual.get(k, _MISSING), f"{path}.{k}")]
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {actual!r}"]
        if len(actual) != len(expected):
            return [f"{path}: expected {len(expected)} items, got {len(actual)}: {actual!r}"]
        return [m for i, (e, a) in enumerate(zip(expected, actual)) for m in mismatches(e, a, f"{path}[{i}]")]
    # bool is an int in Python; JSON (and TypeScript) tell them apart.
    same = expected == actual and isinstance(expected, bool) == isinstance(actual, bool)
    return [] if same else [f"{path}: expected {expected!r}, got {'nothing' if actual is _MISSING else repr(actual)}"]


def _operator(op: str, arg: Any, actual: Any, path: str) -> list[str]:
    number = isinstance(actual, (int, float)) and not isinstance(actual, bool)
    if op == "$match":
        ok = isinstance(actual, str) and re.search(arg, actual) is not None
        return [] if ok else [f"{path}: {actual!r} does not match /{arg}/"]
    comparisons: dict[str, Callable[[Any, Any], bool]] = {
        "$gt": lambda a, b: bool(a > b), "$gte": lambda a, b: bool(a >= b), "$lt": lambda a, b: bool(a < b),
    }
    if op in comparisons:
        return [] if number and comparisons[op](actual, arg) else [f"{path}: {actual!r} is not {op[1:]} {arg!r}"]
    if op == "$not":
        return [f"{path}: expected anything but {arg!r}"] if not mismatches(arg, actual) else []
    if op == "$len":
        if not isinstance(actual, (list, str)):
            return [f"{path}: {actual!r} has no length"]
        return mismatches(arg, len(actual), f"{path}.length")
    if op == "$contains":
        ok = isinstance(actual, list) and any(not mismatches(arg, item) for item in actual)
        return [] if ok else [f"{path}: no item matches {arg!r} in {actual!r}"]
    if op == "$unique":
        keys = [item.get(arg) for item in actual] if isinstance(actual, list) else None
        return [] if keys is not None and len(set(keys)) == len(keys) else [f"{path}: {arg} values repeat in {keys!r}"]
    if op == "$all":
        return [m for each in arg for m in mismatches(each, actual, path)]
    raise ValueError(f"Unknown matcher {op}")


class ScenarioRunner:
    def __init__(self, harness_url: str) -> None:
        self.harness_url = harness_url
        setup = harness(harness_url, "setup")
        self.base_url: str = setup["base_url"]
        self.keys: dict[str, str] = {**setup["keys"], "empty": ""}
        # The default client reads VESSEL_API_KEY and VESSEL_BASE_URL, as a user's would.
        self.clients: dict[str, vessel.Vessel] = {"default": vessel.Vessel()}
        self.saved: dict[str, Any] = {}

    def resolve(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("$") and not value.startswith("$$"):
            name, *path = value[1:].split(".")
            found = self.saved[name]
            for part in path:
                found = found[part]
            return found
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict) and set(value) == {"$utf8"}:
            return str(value["$utf8"]).encode()
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        return value

    def run(self, scenario: dict[str, Any]) -> None:
        try:
            for index, step in enumerate(scenario["steps"]):
                try:
                    self.step(step)
                except AssertionError as failure:
                    raise AssertionError(f"step {index + 1} {json.dumps(step)[:300]}: {failure}") from None
        finally:
            harness(self.harness_url, "release_all")

    def step(self, step: dict[str, Any]) -> None:
        started = time.monotonic()
        background = self._background(step.get("while"))
        try:
            result = plain(self._perform(step))
            error: BaseException | None = None
        except (vessel.VesselError, TypeError) as raised:
            result, error = None, raised
        finally:
            if background:
                background()
        elapsed_ms = (time.monotonic() - started) * 1000
        if "raises" in step:
            self._expect_error(step, error)
        elif error is not None:
            raise AssertionError(f"raised {type(error).__name__}: {error}")
        if "expect" in step:
            failures = mismatches(self.resolve(step["expect"]), result)
            assert not failures, "; ".join(failures)
        if "elapsed_ms" in step:
            failures = mismatches(step["elapsed_ms"], elapsed_ms, "elapsed_ms")
            assert not failures, "; ".join(failures)
        if "save" in step:
            self.saved[step["save"]] = result

    def _perform(self, step: dict[str, Any]) -> Any:
        if "harness" in step:
            return harness(self.harness_url, step["harness"], self.resolve(step.get("args", {})))
        if "connect" in step:
            return {"product": cdp_call(self.resolve(step["connect"]), "Browser.getVersion")["product"]}
        if "call" in step:
            area, method = step["call"].split(".")
            client = self.clients[step.get("client", "default")]
            call = getattr(getattr(client, area), method)
            value = call(*self.resolve(step.get("args", [])), **self.resolve(step.get("options", {})))
            return list(value) if step.get("collect") else value
        if "client" in step:
            self.clients[step["client"]] = self._client(step)
            return None
        raise ValueError(f"Unknown step {step}")

    def _client(self, step: dict[str, Any]) -> vessel.Vessel:
        retry = step.get("retry", {})
        seconds = {"max_elapsed_ms": "max_elapsed_seconds", "base_delay_ms": "base_delay_seconds", "max_delay_ms": "max_delay_seconds"}
        options = {seconds[k]: v / 1000 for k, v in retry.items() if k in seconds}
        if "max_attempts" in retry:
            options["max_attempts"] = retry["max_attempts"]
        base_url = self.resolve(step["base_url"]) if "base_url" in step else self.base_url
        return vessel.Vessel(api_key=self.keys[step["key"]], base_url=base_url, retry=vessel.Retry(**options))

    def _background(self, spec: dict[str, Any] | None) -> Callable[[], None] | None:
        """Starts a harness action beside the call; the returned function waits for it and re-raises its failure."""
        if spec is None:
            return None
        outcome: dict[str, BaseException] = {}
        args = self.resolve(spec.get("args", {}))
        action: str = spec["harness"]

        def work() -> None:
            try:
                harness(self.harness_url, action, args)
            except BaseException as failure:  # noqa: BLE001 - handed to the test thread
                outcome["failure"] = failure

        thread = threading.Thread(target=work, daemon=True)
        thread.start()

        def join() -> None:
            thread.join(120)
            if "failure" in outcome:
                raise AssertionError(f"harness {action} failed: {outcome['failure']}")

        return join

    def _expect_error(self, step: dict[str, Any], error: BaseException | None) -> None:
        name = step["raises"]
        wanted = getattr(vessel, _ERROR_NAMES.get(name, name))
        assert isinstance(error, wanted), f"expected {name}, got {type(error).__name__ if error else 'no error'}: {error}"
        seen = {
            "status": getattr(error, "status", None), "slug": getattr(error, "slug", None), "field": getattr(error, "field", None),
            "retry_after": getattr(error, "retry_after", None), "message": str(error),
        }
        failures = mismatches(self.resolve(step.get("error", {})), seen, "error")
        assert not failures, "; ".join(failures)
