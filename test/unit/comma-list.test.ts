import { describe, expect, it } from "vitest";
import { commaList, knownNameList } from "../../src/comma-list.ts";

describe("comma-separated lists", () => {
  it("trims each item and keeps empty ones unless asked", () => {
    expect(commaList(" a, b ,c")).toEqual(["a", "b", "c"]);
    expect(commaList("a,,b, ")).toEqual(["a", "", "b", ""]);
    expect(commaList("a,,b, ", { dropEmpty: true })).toEqual(["a", "b"]);
    expect(commaList("")).toEqual([""]);
  });

  it("a list of known names skips empty items and refuses unknown ones, naming the known", () => {
    const list = knownNameList(["red", "green"] as const, "colour", 20);
    expect(list.parse("red, ,green")).toEqual(["red", "green"]);
    const refused = list.safeParse("red,blue");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe("unknown colour blue; known: red, green");
    expect(list.safeParse("red,".repeat(6)).success).toBe(false);
  });
});
