/**
 * The MCP tools that drive a session's browser: navigate, snapshot, click, type, press a key,
 * scroll, screenshot, list and switch tabs. Each runs through the session's own CDP connection
 * (./browser-links.ts), so the CDP and egress policies judge it as they judge any client.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KeyInput, Page } from "puppeteer-core";
import { z } from "zod";
import type { Link } from "./browser-links.ts";
import { backendNodeIdOf, centreOf, focus, snapshotText } from "./page-snapshot.ts";
import type { McpState } from "./state.ts";
import { ToolError, text, toolCall, type ToolExtra } from "./tool-call.ts";

const SessionId = z.string().min(1).max(64).optional().describe("The session to act on (default: the one created or used last).");
const Ref = z.string().min(2).max(20).describe("An element reference from the latest snapshot, like e12.");

/** What the model is told after an action: where the tab is now. */
async function whereNow(page: Page): Promise<string> {
  const title = await page.title().catch(() => "");
  return `The tab shows ${page.url()}${title ? ` (“${title}”)` : ""}.`;
}

/** "Control+Shift+T" → modifiers held around the last key. */
async function pressCombo(page: Page, combo: string): Promise<void> {
  const keys = combo
    .split("+")
    .map((k) => k.trim())
    .filter(Boolean) as KeyInput[];
  if (keys.length === 0) throw new ToolError("Name a key, like Enter, Tab, ArrowDown, Escape or Control+A.");
  const key = keys.pop()!;
  try {
    for (const m of keys) await page.keyboard.down(m);
    await page.keyboard.press(key);
  } catch (err) {
    if (err instanceof Error && /Unknown key/i.test(err.message))
      throw new ToolError(`Unknown key "${combo}": use names like Enter, Tab, ArrowDown, Escape, Backspace, a, Control+A.`);
    throw err;
  } finally {
    for (const m of keys.reverse()) await page.keyboard.up(m).catch(() => {});
  }
}

/** Two animation frames: long enough for a wheel's scroll to land before reading the position. */
const settle = (page: Page) => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

export function registerPageTools(server: McpServer, state: McpState): void {
  /** One audited call on the session's current tab, through its (possibly new) connection. */
  const act = (
    extra: unknown,
    action: string,
    sessionId: string | undefined,
    work: (page: Page, linked: { id: string; link: Link }) => Promise<CallToolResult>,
  ) =>
    toolCall(extra as ToolExtra, action, sessionId ?? state.lastSession, async (ctx) => {
      const linked = await state.linkFor(ctx, sessionId);
      return work(await state.links.page(linked.link), linked);
    });

  server.registerTool(
    "navigate",
    {
      title: "Open a web address",
      description: "Loads a URL in the session's current tab and waits for the page to load. Take a snapshot afterwards to see it.",
      inputSchema: { session_id: SessionId, url: z.string().url().max(8192).describe("An http(s) address.") },
    },
    (args, extra) =>
      act(extra, "mcp.navigate", args.session_id, async (page) => {
        if (!/^https?:\/\//i.test(args.url)) throw new ToolError("Only http and https addresses can be opened.");
        const response = await page.goto(args.url, { waitUntil: "load", timeout: 30_000 });
        return text(`${response ? `HTTP ${response.status()}. ` : ""}${await whereNow(page)}`);
      }),
  );

  server.registerTool(
    "snapshot",
    {
      title: "Read the page",
      description:
        "Returns the current tab's accessibility tree as indented text: roles, names, values and states, each element with a " +
        "reference like [ref=e12]. Use those references with click and type. References stay valid until the element leaves the page.",
      inputSchema: { session_id: SessionId },
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      act(extra, "mcp.snapshot", args.session_id, async (page, { link }) => {
        const tree = await snapshotText(await state.links.cdp(link, page));
        return text(`${await whereNow(page)}\n\n${tree}`);
      }),
  );

  server.registerTool(
    "click",
    {
      title: "Click an element",
      description: "Scrolls the element into view and clicks its middle with the mouse, as a person would.",
      inputSchema: {
        session_id: SessionId,
        ref: Ref,
        button: z.enum(["left", "right", "middle"]).optional().describe("Default left."),
        double: z.boolean().optional().describe("A double click."),
      },
    },
    (args, extra) =>
      act(extra, "mcp.click", args.session_id, async (page, { link }) => {
        const { x, y } = await centreOf(await state.links.cdp(link, page), args.ref);
        await page.mouse.click(x, y, { button: args.button ?? "left", clickCount: args.double ? 2 : 1 });
        return text(`Clicked ${args.ref}. ${await whereNow(page)}`);
      }),
  );

  server.registerTool(
    "type",
    {
      title: "Type into an element",
      description:
        "Focuses a text field (or any editable element) by reference and types the text key by key. Optionally clears it first and presses Enter after.",
      inputSchema: {
        session_id: SessionId,
        ref: Ref,
        text: z.string().max(10_000).describe("What to type."),
        clear: z.boolean().optional().describe("Empty the field first."),
        submit: z.boolean().optional().describe("Press Enter after typing."),
      },
    },
    (args, extra) =>
      act(extra, "mcp.type", args.session_id, async (page, { link }) => {
        const cdp = await state.links.cdp(link, page);
        await focus(cdp, args.ref);
        if (args.clear) {
          const { object } = await cdp.send("DOM.resolveNode", { backendNodeId: backendNodeIdOf(args.ref) });
          await cdp.send("Runtime.callFunctionOn", {
            objectId: object.objectId!,
            functionDeclaration:
              "function(){if('value' in this){this.value='';this.dispatchEvent(new Event('input',{bubbles:true}));}else if(this.isContentEditable){this.textContent='';}}",
          });
        }
        await page.keyboard.type(args.text);
        if (args.submit) await page.keyboard.press("Enter");
        return text(`Typed ${args.text.length} characters into ${args.ref}${args.submit ? " and pressed Enter" : ""}. ${await whereNow(page)}`);
      }),
  );

  server.registerTool(
    "press_key",
    {
      title: "Press a key",
      description:
        "Presses a key (or a combination like Control+A) in the current tab, on whatever has focus. Names: Enter, Tab, Escape, Backspace, ArrowDown, PageDown, a, …",
      inputSchema: { session_id: SessionId, key: z.string().min(1).max(60).describe("The key, e.g. Enter or Control+A.") },
    },
    (args, extra) =>
      act(extra, "mcp.press_key", args.session_id, async (page) => {
        await pressCombo(page, args.key);
        return text(`Pressed ${args.key}. ${await whereNow(page)}`);
      }),
  );

  server.registerTool(
    "scroll",
    {
      title: "Scroll",
      description: "Scrolls the page with the mouse wheel in a direction, or scrolls an element (by reference) into view.",
      inputSchema: {
        session_id: SessionId,
        direction: z.enum(["up", "down", "left", "right"]).optional().describe("Default down."),
        amount: z.number().int().min(1).max(20_000).optional().describe("CSS pixels (default 600, about a screen)."),
        ref: Ref.optional().describe("Instead: bring this element into view."),
      },
    },
    (args, extra) =>
      act(extra, "mcp.scroll", args.session_id, async (page, { link }) => {
        if (args.ref) {
          await centreOf(await state.links.cdp(link, page), args.ref);
          return text(`Scrolled ${args.ref} into view.`);
        }
        const amount = args.amount ?? 600;
        const direction = args.direction ?? "down";
        const size = await page.evaluate(() => ({ w: innerWidth, h: innerHeight }));
        await page.mouse.move(size.w / 2, size.h / 2);
        const delta = { up: [0, -amount], down: [0, amount], left: [-amount, 0], right: [amount, 0] }[direction];
        await page.mouse.wheel({ deltaX: delta[0], deltaY: delta[1] });
        await settle(page);
        const at = await page.evaluate(() => ({ x: Math.round(scrollX), y: Math.round(scrollY) }));
        return text(`Scrolled ${direction} by ${amount}px; the page is now scrolled to x=${at.x}, y=${at.y}.`);
      }),
  );

  server.registerTool(
    "screenshot",
    {
      title: "Take a screenshot",
      description: "A PNG image of the current tab's viewport (or the whole page with full_page).",
      inputSchema: { session_id: SessionId, full_page: z.boolean().optional().describe("The whole scrollable page, not just the visible part.") },
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      act(extra, "mcp.screenshot", args.session_id, async (page) => {
        const data = await page.screenshot({ type: "png", encoding: "base64", fullPage: args.full_page ?? false });
        return { content: [{ type: "image", data, mimeType: "image/png" }] };
      }),
  );

  server.registerTool(
    "list_tabs",
    {
      title: "List tabs",
      description: "Lists the session's open tabs with their ids (t1, t2, …), addresses and titles; * marks the one the tools act on.",
      inputSchema: { session_id: SessionId },
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      act(extra, "mcp.list_tabs", args.session_id, async (_page, { link }) => {
        const tabs = await state.links.tabs(link);
        const lines = await Promise.all(tabs.map(async (t) => `${t.current ? "*" : " "} ${t.id}  ${t.page.url()}  ${await t.page.title().catch(() => "")}`));
        return text(lines.join("\n"));
      }),
  );

  server.registerTool(
    "switch_tab",
    {
      title: "Switch tab",
      description: "Brings a tab (an id from list_tabs) to the front; the other tools act on it from now on.",
      inputSchema: { session_id: SessionId, tab_id: z.string().min(2).max(12).describe("A tab id from list_tabs, like t2.") },
    },
    (args, extra) =>
      act(extra, "mcp.switch_tab", args.session_id, async (_page, { link }) => {
        const page = await state.links.switchTo(link, args.tab_id);
        return text(`Switched to ${args.tab_id}. ${await whereNow(page)}`);
      }),
  );
}
