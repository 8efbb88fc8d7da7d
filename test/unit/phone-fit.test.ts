import { describe, expect, it } from "vitest";
import { phoneMetrics } from "../../src/live-view/phone-fit.ts";

describe("the live view's phone layout", () => {
  const phone = { w: 390, h: 676, dpr: 3 };
  it("lays the page out for a portrait phone in an interactive view", () => {
    expect(phoneMetrics(phone, { interactive: true, browser: null })).toEqual({ width: 390, height: 676, deviceScaleFactor: 3, mobile: true });
  });
  it("leaves the page alone for view-only watchers, desktops, landscape, and sessions with a viewport of their own", () => {
    expect(phoneMetrics(phone, { interactive: false, browser: null })).toBeNull();
    expect(phoneMetrics({ w: 1440, h: 770, dpr: 1 }, { interactive: true, browser: null })).toBeNull();
    expect(phoneMetrics({ w: 560, h: 300, dpr: 2 }, { interactive: true, browser: null })).toBeNull();
    expect(phoneMetrics(phone, { interactive: true, browser: { viewport: { width: 1280, height: 800 } } })).toBeNull();
    expect(phoneMetrics(phone, { interactive: true, browser: { locale: "de-CH" } })).not.toBeNull();
  });
});
