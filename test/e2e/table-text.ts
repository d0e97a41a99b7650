/**
 * Is a table's text readable where it is shown? For the e2e tests of narrow screens (phone-tables, track):
 * what a reader cannot reach, in words, so a failure names the cell.
 */
import type { Page } from 'playwright-core';

/**
 * Every caption, th and td under `root` (a selector; the page's `main` by default) whose text a reader cannot
 * reach, each with why. A cell is cut when its box reaches past the visible part of the nearest box that clips
 * it (or of the screen) by more than `SLACK_PX` (sub-pixel rounding of a table's width); that is fine only for
 * a th/td in a box that scrolls sideways, and only if, once the box is scrolled to show the cell, the cell is
 * whole and its row's name cells (the first cell, and any th[scope=row]) are in view too, left of it. Captions
 * must fit where they are. Empty and hidden cells are skipped.
 */
export const unreadableTableText = (p: Page, root = 'main'): Promise<string[]> =>
  p.evaluate((root) => {
    const SLACK_PX = 2;
    const out: string[] = [];
    const name = (e: Element) => `${e.tagName.toLowerCase()} "${(e.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}"`;
    const clipper = (e: Element): HTMLElement | null => {
      for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible') return a;
      return null;
    };
    const visible = (a: HTMLElement | null) => {
      if (a === null) return { left: 0, right: innerWidth };
      const left = a.getBoundingClientRect().left + a.clientLeft;
      return { left: Math.max(0, left), right: Math.min(innerWidth, left + a.clientWidth) };
    };
    const scrolls = (a: HTMLElement | null): a is HTMLElement =>
      a !== null && ['auto', 'scroll'].includes(getComputedStyle(a).overflowX) && a.scrollWidth > a.clientWidth + 1;
    const within = (r: { left: number; right: number }, v: { left: number; right: number }) =>
      r.left >= v.left - SLACK_PX && r.right <= v.right + SLACK_PX;
    const text = (e: Element) => (e.textContent ?? '').trim();
    for (const el of document.querySelectorAll<HTMLElement>(`${root} :is(caption, th, td)`)) {
      if (!el.checkVisibility() || text(el) === '') continue;
      let r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (el.scrollWidth > el.clientWidth + SLACK_PX) {
        out.push(`${name(el)} overflows its own box by ${el.scrollWidth - el.clientWidth}px`);
        continue;
      }
      const box = clipper(el);
      const v = visible(box);
      if (within(r, v)) continue;
      const where = `[${Math.round(r.left)}, ${Math.round(r.right)}] shown in [${Math.round(v.left)}, ${Math.round(v.right)}]`;
      if (el.tagName === 'CAPTION' || !scrolls(box)) {
        out.push(`${name(el)} cut: ${where}`);
        continue;
      }
      const row = el.parentElement!;
      const heads = [...new Set([row.firstElementChild!, ...row.querySelectorAll(':scope > th[scope=row]')])].filter(
        (c) => c !== el && text(c) !== '',
      );
      const before = box.scrollLeft;
      box.scrollLeft += r.right - v.right;
      r = el.getBoundingClientRect();
      const v2 = visible(box);
      const headRects = heads.map((h) => h.getBoundingClientRect());
      const headsRight = Math.max(...headRects.map((h) => h.right), -Infinity);
      if (!within(r, v2) || !headRects.every((h) => within(h, v2)) || r.left < headsRight - SLACK_PX)
        out.push(
          `${name(el)} scrolled into view: cell [${Math.round(r.left)}, ${Math.round(r.right)}], row names ` +
            `[${headRects.map((h) => `${Math.round(h.left)}–${Math.round(h.right)}`).join(', ')}] in [${Math.round(v2.left)}, ${Math.round(v2.right)}]`,
        );
      box.scrollLeft = before;
    }
    return out;
  }, root);
