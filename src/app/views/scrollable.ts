/**
 * `use:scrollable={label}` on a box that scrolls sideways on narrow screens: while its content overflows it
 * is a named, focusable region (role=region, tabindex=0), so keyboard users can scroll it with the arrow keys
 * (WCAG 2.1.1; axe's scrollable-region-focusable). When everything fits it is a plain box again (no extra
 * tab stop on a desktop).
 */
export function scrollable(node: HTMLElement, label: string) {
  let name = label;
  const update = () => {
    if (node.scrollWidth > node.clientWidth + 1) {
      node.tabIndex = 0;
      node.setAttribute('role', 'region');
      node.setAttribute('aria-label', name);
    } else {
      node.removeAttribute('tabindex');
      node.removeAttribute('role');
      node.removeAttribute('aria-label');
    }
  };
  const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(update) : null;
  observer?.observe(node);
  if (node.firstElementChild) observer?.observe(node.firstElementChild);
  update();
  return {
    update(next: string) {
      name = next;
      update();
    },
    destroy() {
      observer?.disconnect();
    },
  };
}
