"""clients/scenarios.json against a real Vessel server with real Chromium.

Started by test/e2e/python-client.test.ts, which runs the server, the harness and this suite (with
the package installed from a built copy, not imported from src/). Run alone, it fails: it has no
server to talk to, and a scenario that did not run must not look like one that passed.
"""

from __future__ import annotations

import json
import os
import re
import unittest
from pathlib import Path
from typing import Any

import vessel

from .scenario_runner import ScenarioRunner

SCENARIOS = Path(os.environ.get("VESSEL_SCENARIOS", Path(__file__).resolve().parents[2] / "scenarios.json"))


class Scenarios(unittest.TestCase):
    runner: ScenarioRunner

    @classmethod
    def setUpClass(cls) -> None:
        url = os.environ.get("VESSEL_TEST_HARNESS_URL")
        if not url:
            raise RuntimeError("VESSEL_TEST_HARNESS_URL is not set: run these through test/e2e/python-client.test.ts")
        cls.runner = ScenarioRunner(url)

    def test_the_installed_package_is_tested(self) -> None:
        # The suite must exercise what `pip install` produced, py.typed included, not the source tree.
        if os.environ.get("VESSEL_TEST_REQUIRE_INSTALLED") == "1":
            self.assertIn("site-packages", vessel.__file__)
        self.assertTrue((Path(vessel.__file__).parent / "py.typed").is_file())


def _add(index: int, scenario: dict[str, Any]) -> None:
    def test(self: Scenarios) -> None:
        self.runner.run(scenario)

    slug = re.sub(r"[^a-z0-9]+", "_", scenario["name"].lower()).strip("_")[:60]
    test.__doc__ = scenario["name"]
    setattr(Scenarios, f"test_{index:02d}_{slug}", test)


for _index, _scenario in enumerate(json.loads(SCENARIOS.read_text())["scenarios"], start=1):
    _add(_index, _scenario)
