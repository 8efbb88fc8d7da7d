/**
 * The text snapshot a model reads instead of pixels: the page's accessibility tree (CDP
 * Accessibility.getFullAXTree), one line per meaningful node, indented by depth, each element with a
 * reference `ref=e<n>` where n is the DOM's backend node id. That id is Chromium's own for the node's
 * whole life (not a counter of this snapshot), so a reference stays valid across snapshots and
 * connections until the element leaves the page; click and type resolve it straight back to the node.
 */
import type { CDPSession } from "puppeteer-core";
import { ToolError } from "./tool-call.ts";

interface AXValue {
  value?: unknown;
}
interface AXNode {
  nodeId: string;
  ignored: boolean;
  role?: AXValue;
  name?: AXValue;
  value?: AXValue;
  properties?: Array<{ name: string; value: AXValue }>;
  childIds?: string[];
  backendDOMNodeId?: number;
}

/** Roles that only group others: shown only when they carry a name. */
const structural = new Set(["generic", "none", "presentation", "LineBreak", "group", "paragraph", "Section", "div"]);
/** States worth telling the model about, as `[name]` or `[name=value]`. */
const shownProperties = new Set(["checked", "disabled", "expanded", "selected", "pressed", "level", "required", "readonly", "focused", "invalid"]);

/** The largest snapshot handed back; longer pages are cut (the model can scroll and snapshot again). */
export const maxSnapshotChars = 60_000;

const quote = (s: string) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);

function line(node: AXNode): string | null {
  const role = String(node.role?.value ?? "");
  const name = String(node.name?.value ?? "").trim();
  if (role === "StaticText" || role === "text") return name ? `text ${quote(name)}` : null;
  if (structural.has(role) && !name) return null;
  const parts = [role || "node"];
  if (name) parts.push(quote(name));
  const value = node.value?.value;
  if (value !== undefined && value !== "") parts.push(`value=${quote(String(value))}`);
  for (const p of node.properties ?? []) {
    if (!shownProperties.has(p.name)) continue;
    const v = p.value?.value;
    if (v === false || v === "false" || v === undefined) continue;
    parts.push(v === true || v === "true" ? `[${p.name}]` : `[${p.name}=${String(v)}]`);
  }
  if (node.backendDOMNodeId !== undefined) parts.push(`[ref=e${node.backendDOMNodeId}]`);
  return parts.join(" ");
}

/** The tree as indented lines; ignored and purely structural nodes pass their children up a level. */
export async function snapshotText(cdp: CDPSession): Promise<string> {
  const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as unknown as { nodes: AXNode[] };
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const childOf = new Set(nodes.flatMap((n) => n.childIds ?? []));
  const roots = nodes.filter((n) => !childOf.has(n.nodeId));
  const out: string[] = [];
  let size = 0;
  const walk = (node: AXNode, depth: number) => {
    // A text's layout boxes, each repeating a piece of its StaticText parent: noise to a model.
    if (size > maxSnapshotChars || node.role?.value === "InlineTextBox") return;
    const text = node.ignored ? null : line(node);
    if (text) {
      const l = `${"  ".repeat(depth)}- ${text}`;
      out.push(l);
      size += l.length + 1;
    }
    for (const id of node.childIds ?? []) {
      const child = byId.get(id);
      if (child) walk(child, text ? depth + 1 : depth);
    }
  };
  for (const root of roots) walk(root, 0);
  if (size > maxSnapshotChars) out.push(`… (cut at ${maxSnapshotChars} characters: scroll and snapshot again for the rest)`);
  return out.join("\n");
}

/** `e123` → 123, or a tool error the model can act on. */
export function backendNodeIdOf(ref: string): number {
  const m = /^(?:ref=)?e(\d{1,12})$/.exec(ref.trim());
  if (!m) throw new ToolError(`"${ref}" is not an element reference: use one like e12 from the latest snapshot.`);
  return Number(m[1]);
}

/** The middle of the element's first box in the viewport, after scrolling it into view. */
export async function centreOf(cdp: CDPSession, ref: string): Promise<{ x: number; y: number }> {
  const backendNodeId = backendNodeIdOf(ref);
  try {
    await cdp.send("DOM.scrollIntoViewIfNeeded", { backendNodeId });
    const { quads } = await cdp.send("DOM.getContentQuads", { backendNodeId });
    const q = quads[0];
    if (!q) throw new ToolError(`Element ${ref} is not visible (it has no box on the page).`);
    return { x: (q[0]! + q[2]! + q[4]! + q[6]!) / 4, y: (q[1]! + q[3]! + q[5]! + q[7]!) / 4 };
  } catch (err) {
    throw staleOr(err, ref);
  }
}

/** Puts the keyboard's focus on the element. */
export async function focus(cdp: CDPSession, ref: string): Promise<void> {
  const backendNodeId = backendNodeIdOf(ref);
  try {
    await cdp.send("DOM.focus", { backendNodeId });
  } catch (err) {
    throw staleOr(err, ref);
  }
}

function staleOr(err: unknown, ref: string): unknown {
  if (err instanceof ToolError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/No node|Could not find node|not found|does not belong/i.test(message)) {
    return new ToolError(`Element ${ref} is no longer on the page: take a new snapshot.`);
  }
  if (/not focusable/i.test(message)) return new ToolError(`Element ${ref} cannot take keyboard focus.`);
  return err;
}
