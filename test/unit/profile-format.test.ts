import fs from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ProfileFormatError,
  StorageState,
  emptyDocument,
  fromStorageState,
  parseProfileDocument,
  serializeDocument,
  toStorageState,
  type ProfileDocument,
} from "../../src/browser/profiles/format.ts";

const fixture = () => JSON.parse(fs.readFileSync(new URL("../fixtures/profile-v1.json", import.meta.url), "utf8")) as unknown;

describe("the profile document", () => {
  it("reads the committed version 1 fixture", () => {
    const doc = parseProfileDocument(fixture());
    expect(doc.formatVersion).toBe(1);
    expect(doc.cookies).toHaveLength(4);
    expect(doc.cookies[2]!.partitionKey).toEqual({ topLevelSite: "http://127.0.0.1", hasCrossSiteAncestor: false });
    expect(serializeDocument(doc).stats).toMatchObject({ cookieCount: 4, originCount: 2, keyCount: 4 });
  });

  it("refuses unknown versions and malformed documents, without quoting values", () => {
    expect(() => parseProfileDocument({ ...(fixture() as object), formatVersion: 2 })).toThrow(ProfileFormatError);
    expect(() => parseProfileDocument(null)).toThrow(ProfileFormatError);
    const doc = fixture() as ProfileDocument;
    doc.cookies[0]!.value = "secret;value";
    let message = "";
    try {
      parseProfileDocument(doc);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/cookies\.0\.value/);
    expect(message).not.toContain("secret");
  });

  it("round-trips through Playwright's storageState, keeping sessionStorage and partition keys", () => {
    const doc = parseProfileDocument(fixture());
    const state = toStorageState(doc);
    expect(state.cookies[1]!.sameSite).toBe("Lax"); // unspecified is exported as browsers treat it
    expect(state.cookies[2]).toMatchObject({ partitionKey: "http://127.0.0.1", _crHasCrossSiteAncestor: false });
    const back = fromStorageState(StorageState.parse(JSON.parse(JSON.stringify(state))));
    expect(back.origins).toEqual(doc.origins);
    expect(back.cookies.map((c) => ({ ...c, sameSite: c.sameSite === "Lax" ? null : c.sameSite }))).toEqual(
      doc.cookies.map((c) => ({ ...c, sameSite: c.sameSite === "Lax" ? null : c.sameSite })),
    );
  });

  it("applies Chromium's cookie rules on import", () => {
    const ok = { name: "a", value: "b", domain: ".example.com", path: "/" };
    const issues = (cookie: object) => {
      const r = StorageState.safeParse({ cookies: [cookie], origins: [] });
      return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
    };
    expect(issues(ok)).toEqual([]);
    expect(issues({ ...ok, sameSite: "None" })).toEqual(["cookies.0.secure"]);
    expect(issues({ ...ok, partitionKey: "https://example.com" })).toEqual(["cookies.0.secure"]);
    expect(issues({ ...ok, partitionKey: "https://example.com/x", secure: true })).toEqual(["cookies.0.partitionKey"]);
    expect(issues({ ...ok, name: "__Host-x", secure: true })).toEqual(["cookies.0.domain"]);
    expect(issues({ ...ok, name: "__Secure-x" })).toEqual(["cookies.0.secure"]);
    expect(issues({ ...ok, name: "a=b" })).toEqual(["cookies.0.name"]);
    expect(issues({ ...ok, value: "x".repeat(4096) })).toEqual(["cookies.0.value"]);
    expect(issues({ ...ok, name: "", value: "" })).toEqual(["cookies.0.name"]);
    expect(issues({ ...ok, expires: 1e20 })).toEqual(["cookies.0.expires"]);
    expect(issues({ ...ok, domain: "[::1]" })).toEqual([]);
  });

  it("sizes the serialised document, which the limit applies to", () => {
    const doc = emptyDocument();
    doc.origins.push({ origin: "https://example.com", localStorage: [{ name: "k", value: "é".repeat(10) }], sessionStorage: [] });
    const { json, stats } = serializeDocument(doc);
    expect(stats.sizeBytes).toBe(json.length);
    expect(stats.sizeBytes).toBe(Buffer.byteLength(JSON.stringify(doc)));
    expect(stats).toMatchObject({ cookieCount: 0, originCount: 1, keyCount: 1 });
  });
});
