import type { ComponentProps } from "react";

/**
 * A box that scrolls on its own, reachable with the keyboard: focusable and named, so a keyboard
 * user can Tab to it and scroll it with the arrow keys (WCAG 2.1.1; axe `scrollable-region-focusable`).
 */
export function ScrollRegion({ label, ...props }: ComponentProps<"section"> & { label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard.
    <section tabIndex={0} aria-label={label} {...props} />
  );
}
