"""The scenario runner's matchers decide clients/scenarios.json's own checks as the TypeScript runner does."""

from __future__ import annotations

import json
import unittest

from .scenario_runner import mismatches
from .test_scenarios import SCENARIOS


class MatcherTests(unittest.TestCase):
    def test_every_check(self) -> None:
        for check in json.loads(SCENARIOS.read_text())["matcher_checks"]:
            with self.subTest(check=check):
                self.assertEqual(not mismatches(check["expected"], check["actual"]), check["ok"])
