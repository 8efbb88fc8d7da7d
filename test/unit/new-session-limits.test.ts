import { describe, expect, it } from "vitest";
import { limitsInput, startUrlOf } from "../../src/dashboard/src/pages/new-session-limits.ts";

/** Issue 25: the new-session dialog checks its limits in the minutes it shows, and its start URL. */
describe("the new-session dialog's limits", () => {
  const base = { minutes: "30", idleMinutes: "5", startUrl: "" };

  it("turns whole minutes into seconds; empty means the server's default", () => {
    expect(limitsInput(base)).toEqual({ input: { timeoutSeconds: 1800, idleTimeoutSeconds: 300, startUrl: null }, problems: new Map() });
    expect(limitsInput({ ...base, minutes: " ", idleMinutes: "" }).input).toMatchObject({ timeoutSeconds: null, idleTimeoutSeconds: null });
  });

  it("says what is wrong in minutes, once per field (99 minutes is not 'expected <=1800')", () => {
    for (const bad of ["1441", "99999", "0", "-5", "1.5", "ten"]) {
      const { problems } = limitsInput({ ...base, minutes: bad });
      expect([...problems]).toEqual([["timeout_seconds", "Enter whole minutes from 1 to 1440."]]);
    }
    expect([...limitsInput({ ...base, idleMinutes: "2000" }).problems.keys()]).toEqual(["idle_timeout_seconds"]);
  });

  it("takes an http(s) start URL, adds https:// to a bare host, refuses anything else", () => {
    expect(startUrlOf("https://example.com/a?b=1")).toBe("https://example.com/a?b=1");
    expect(startUrlOf("example.com/path")).toBe("https://example.com/path");
    expect(startUrlOf("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/");
    expect(startUrlOf("")).toBeNull();
    for (const bad of ["javascript:alert(1)", "file:///etc/passwd", "ftp://x.test/", "https://", "ht tp://x"]) expect(startUrlOf(bad), bad).toBe("bad");
    expect(limitsInput({ ...base, startUrl: "file:///etc/passwd" }).problems.get("start_url")).toBe("Enter an http(s) address, like https://example.com/.");
  });
});
