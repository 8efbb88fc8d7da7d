import { describe, expect, it } from "vitest";
import { snapshotText } from "../../src/mcp/page-snapshot.ts";

/** Issue 45, point 13: MCP snapshots leave out InlineTextBox nodes (each repeats a piece of its text). */
describe("page snapshots", () => {
  it("show a text once, without its InlineTextBox children", async () => {
    const nodes = [
      { nodeId: "1", role: { value: "RootWebArea" }, name: { value: "Page" }, childIds: ["2"], backendDOMNodeId: 1 },
      { nodeId: "2", role: { value: "heading" }, name: { value: "Hello there" }, childIds: ["3"], backendDOMNodeId: 2 },
      { nodeId: "3", role: { value: "StaticText" }, name: { value: "Hello there" }, childIds: ["4", "5"] },
      { nodeId: "4", role: { value: "InlineTextBox" }, name: { value: "Hello " } },
      { nodeId: "5", role: { value: "InlineTextBox" }, name: { value: "there" } },
    ];
    const text = await snapshotText({ send: async () => ({ nodes }) } as never);
    expect(text).toBe(['- RootWebArea "Page" [ref=e1]', '  - heading "Hello there" [ref=e2]', '    - text "Hello there"'].join("\n"));
  });
});
