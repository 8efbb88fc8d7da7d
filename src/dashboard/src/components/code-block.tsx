import type { ReactNode } from "react";

/**
 * A snippet that may scroll sideways: focusable and named, so a keyboard can reach it and scroll it
 * (axe's scrollable-region-focusable), and a screen reader says what it holds.
 */
export function CodeBlock({ label, small, children }: { label: string; small?: boolean; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    // biome-ignore lint/a11y/useSemanticElements: the snippet stays a <pre> (whitespace); the role names it as a region.
    <pre className={`code-block${small ? " small" : ""}`} tabIndex={0} role="region" aria-label={label}>
      <code>{children}</code>
    </pre>
  );
}
