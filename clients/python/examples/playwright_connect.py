"""Drive a Vessel session with Playwright for Python, hand it to a person if needed, then release it.

    pip install playwright        # the client itself needs nothing beyond the standard library
    VESSEL_API_KEY=vs_… VESSEL_BASE_URL=http://localhost:8080 python3 playwright_connect.py https://example.com/

Not run by the test suite: Playwright for Python is not installable where the tests run (PyPI is out
of reach there). The same create → connect → release path is covered by the suite's scenarios.
"""

from __future__ import annotations

import os
import sys

from playwright.sync_api import sync_playwright

from vessel import Vessel, VesselTimeoutError

url = sys.argv[1] if len(sys.argv) > 1 else "https://example.com/"
vessel = Vessel()  # VESSEL_API_KEY, VESSEL_BASE_URL
session = vessel.sessions.create(
    os.environ.get("VESSEL_REGION", "us-east1"),
    live_view={"interactive": True, "instructions": "Please complete the sign-in, then click Done."},
)
try:
    with sync_playwright() as playwright:
        # connect_url is a CDP address with its token; Chromium's own contexts and pages come with it.
        browser = playwright.chromium.connect_over_cdp(session.connect_url)
        context = browser.contexts[0] if browser.contexts else browser.new_context()
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url)
        print({"session": session.id, "title": page.title()})

        if os.environ.get("HAND_OFF") == "1":
            # Send this link to a person (valid about 5 minutes; keepalive mints a fresh one).
            print({"live_view_url": session.live_view_url})
            try:
                done = vessel.sessions.wait_for_live_view_done(session.id, timeout_seconds=600)
                print({"done": done.created_at, "title": page.title()})
            except VesselTimeoutError as waited:
                print({"timeout": str(waited)})
        browser.close()
finally:
    vessel.sessions.release(session.id)
