import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");

/** Issue 25: the README cited "security.md §1.13", a file not in the repository; and never said where the dashboard is. */
describe("the README", () => {
  it("cites only files that are in the repository", () => {
    expect(readme).not.toMatch(/security\.md|§\s*\d/);
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(fs.existsSync(path.join(root, link)), link).toBe(true);
    expect(readme).toContain("(docs/threat-model.md)");
  });

  it("stays short: what Vessel is, the two commands, a first session, links (issue 42: under 15 KB)", () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(15 * 1024);
    const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("### Your first session"));
    expect(quickStart).toContain("npm start");
    expect(quickStart).toContain("npm test");
  });

  it("names the dashboard's address in the Quick start", () => {
    const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("### Your first session"));
    expect(quickStart).toContain("http://localhost:8080/dashboard/");
  });
});
