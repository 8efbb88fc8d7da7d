import { useEffect, type RefObject } from "react";

const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * While `active`, focus moves into `box` (its first control) and Tab / Shift+Tab cycle inside it, so a
 * keyboard user cannot wander under an open drawer (WCAG 2.4.3); Escape calls `onEscape`. The
 * page behind is also made `inert` by the caller, so screen readers stay in the drawer too.
 */
export function useFocusTrap(box: RefObject<HTMLElement | null>, active: boolean, onEscape: () => void): void {
  useEffect(() => {
    const el = box.current;
    if (!active || !el) return;
    const controls = () => [...el.querySelectorAll<HTMLElement>(focusable)].filter((c) => c.offsetParent !== null || c === document.activeElement);
    // After the slide-in has made it visible.
    const raf = requestAnimationFrame(() => controls()[0]?.focus());
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        onEscape();
        return;
      }
      if (e.key !== "Tab") return;
      const list = controls();
      if (list.length === 0) return;
      const first = list[0]!;
      const last = list[list.length - 1]!;
      const at = document.activeElement;
      if (e.shiftKey && (at === first || !el.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !el.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      cancelAnimationFrame(raf);
      document.removeEventListener("keydown", onKey);
    };
  }, [box, active, onEscape]);
}
