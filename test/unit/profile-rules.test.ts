import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ProfileDocumentV1, parseProfileDocument } from "../../src/browser/profiles/format.ts";
import { isPlainDocumentV1 } from "../../src/browser/profiles/rules.ts";

// The plain check (browser/profiles/rules.ts) stands in for the schema when a stored document is read: it
// may be stricter than the schema (the schema then reads the document), never looser.

const fixture = () => JSON.parse(fs.readFileSync(new URL("../fixtures/profile-v1.json", import.meta.url), "utf8")) as Record<string, any>;
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** Values a field may be replaced by: wrong types, edges of every length limit and pattern. */
const odd: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -1,
  -2,
  1.5,
  1e20,
  253_402_300_799,
  253_402_300_800,
  "",
  "x",
  " ",
  "a=b",
  "a;b",
  "a\tb",
  "a\nb",
  "\x7f",
  "/",
  "/x;y",
  "x/",
  ".example.com",
  "example..com",
  "[::1]",
  "[zz]",
  "ex ample.com",
  "a".repeat(254),
  "a".repeat(255),
  "x".repeat(4096),
  "x".repeat(4097),
  "__Host-x",
  "__Secure-x",
  "__host-x",
  "Strict",
  "Lax",
  "None",
  "lax",
  "http://127.0.0.1",
  "https://example.com",
  "https://example.com/",
  "https://example.com:8443",
  "ftp://example.com",
  "http://EXAMPLE.com",
  `https://${"a".repeat(2040)}.com`,
  {},
  [],
  { topLevelSite: "https://example.com", hasCrossSiteAncestor: false },
  { topLevelSite: "https://example.com", hasCrossSiteAncestor: false, more: 1 },
  { topLevelSite: "https://example.com:1", hasCrossSiteAncestor: true },
  [{ name: "k", value: "v" }],
  [
    { name: "k", value: "v" },
    { name: "k", value: "w" },
  ],
  [{ name: "k" }],
  [{ name: 1, value: "v" }],
  [{ name: "k".repeat(16_385), value: "v" }],
  [{ name: "k", value: "v", extra: true }],
];

/** Every document one change away from the fixture: each field of each part set to each odd value, removed, or joined by an unknown one. */
function* variants(): Generator<unknown> {
  const base = fixture();
  const parts: Array<(doc: Record<string, any>) => Record<string, any>> = [
    (d) => d,
    ...base.cookies.map((_: unknown, i: number) => (d: Record<string, any>) => d.cookies[i]),
    ...base.cookies.map((_: unknown, i: number) => (d: Record<string, any>) => d.cookies[i].partitionKey ?? {}),
    ...base.origins.map((_: unknown, i: number) => (d: Record<string, any>) => d.origins[i]),
    ...base.origins.map((_: unknown, i: number) => (d: Record<string, any>) => d.origins[i].localStorage[0] ?? {}),
  ];
  for (const part of parts) {
    for (const key of [...Object.keys(part(base)), "extra", "__proto__"]) {
      for (const value of odd) {
        const doc = clone(base);
        const target = part(doc);
        if (value === undefined) delete target[key];
        else Object.defineProperty(target, key, { value: clone(value), enumerable: true, configurable: true, writable: true });
        yield doc;
      }
    }
  }
  const twice = clone(base);
  twice.origins.push(clone(twice.origins[0]));
  yield twice;
  const many = clone(base);
  many.origins[0].localStorage = Array.from({ length: 10_001 }, (_, i) => ({ name: `k${i}`, value: "" }));
  yield many;
  yield [];
  yield null;
  yield "vessel.profile";
}

describe("the plain check of a stored profile document", () => {
  it("accepts nothing the schema refuses, and returns what the schema would", () => {
    let accepted = 0;
    let checked = 0;
    for (const doc of variants()) {
      checked++;
      const schema = ProfileDocumentV1.safeParse(doc);
      if (isPlainDocumentV1(doc)) {
        accepted++;
        expect(schema.success, JSON.stringify(doc).slice(0, 400)).toBe(true);
        expect(schema.data).toEqual(doc);
      }
      // Stricter is allowed but costs the schema's time: for these, the two agree.
      else expect(schema.success, JSON.stringify(doc).slice(0, 400)).toBe(false);
    }
    expect(checked).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(100);
  });

  it("is what reads a valid document, which comes back as it was parsed", () => {
    const doc = fixture();
    expect(isPlainDocumentV1(doc)).toBe(true);
    expect(parseProfileDocument(doc)).toBe(doc);
    const realistic = {
      format: "vessel.profile",
      formatVersion: 1,
      cookies: Array.from({ length: 300 }, (_, i) => ({
        name: `c${i}`,
        value: "v".repeat(64),
        domain: ["127.0.0.1", "localhost", ".bench.example"][i % 3],
        path: "/",
        expires: 2_000_000_000,
        httpOnly: i % 2 === 0,
        secure: false,
        sameSite: "Lax",
        partitionKey: null,
      })),
      origins: Array.from({ length: 5 }, (_, o) => ({
        origin: `http://127.0.0.1:${4000 + o}`,
        localStorage: Array.from({ length: 160 }, (_, i) => ({ name: `l${i}`, value: "v".repeat(64) })),
        sessionStorage: Array.from({ length: 40 }, (_, i) => ({ name: `s${i}`, value: "v".repeat(64) })),
      })),
    };
    expect(isPlainDocumentV1(realistic)).toBe(true);
    expect(ProfileDocumentV1.safeParse(realistic).success).toBe(true);
  });
});
