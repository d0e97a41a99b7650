/** Move the reader to a section: scroll its heading into view and give it focus (headings carry tabindex -1). */
export function focusSection(id: string): void {
  const el = document.getElementById(id);
  if (!el) return;
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
}
