/** VirtualList: only visible rows in the DOM, scrolling, keyboard selection, Enter opens. */
import { fireEvent, render, screen } from '@testing-library/svelte';
import { expect, test } from 'vitest';
import VirtualListHarness from './VirtualListHarness.svelte';

const items = Array.from({ length: 10_000 }, (_, i) => `item-${i}`);

function setup(height = 320, rowHeight = 32) {
  const opened: string[] = [];
  const r = render(VirtualListHarness, { props: { items, height, rowHeight, opened } });
  const listbox = screen.getByRole('listbox', { name: 'Things' });
  return { ...r, opened, listbox };
}

const shown = (): string[] => screen.getAllByRole('option').map((o) => o.querySelector('span')!.textContent!);

test('renders only the visible rows plus the overscan', () => {
  const { listbox } = setup();
  const options = screen.getAllByRole('option');
  // 320 px / 32 px = 10 visible rows; the overscan adds a few, never thousands.
  expect(options.length).toBeGreaterThanOrEqual(10);
  expect(options.length).toBeLessThan(30);
  expect(shown()[0]).toBe('item-0');
  // The spacer keeps the full scroll height.
  expect((listbox.firstElementChild as HTMLElement).style.height).toBe(`${items.length * 32}px`);
  expect(options[0]!.getAttribute('aria-setsize')).toBe(String(items.length));
});

test('scrolling swaps the rendered window', async () => {
  const { listbox } = setup();
  listbox.scrollTop = 5000 * 32;
  await fireEvent.scroll(listbox);
  const names = shown();
  expect(names).toContain('item-5000');
  expect(names).toContain('item-5009');
  expect(names).not.toContain('item-0');
  expect(screen.getAllByRole('option').length).toBeLessThan(30);
  const opt = screen.getAllByRole('option').find((o) => o.textContent === 'item-5000')!;
  expect(opt.style.top).toBe(`${5000 * 32}px`);
  expect(opt.getAttribute('aria-posinset')).toBe('5001');
});

test('arrow keys move the selection and keep it in view; Enter opens it', async () => {
  const { listbox, opened } = setup();
  await fireEvent.keyDown(listbox, { key: 'ArrowDown' });
  let sel = screen.getByRole('option', { selected: true });
  expect(sel.textContent).toContain('item-0');
  expect(listbox.getAttribute('aria-activedescendant')).toBe(sel.id);

  for (let i = 0; i < 24; i++) await fireEvent.keyDown(listbox, { key: 'ArrowDown' });
  sel = screen.getByRole('option', { selected: true });
  expect(sel.textContent).toContain('item-24');
  // Row 24 spans 768–800 px: the viewport (320 px) must have scrolled to show it.
  expect(listbox.scrollTop).toBe(800 - 320);
  expect(listbox.getAttribute('aria-activedescendant')).toBe(sel.id);

  await fireEvent.keyDown(listbox, { key: 'ArrowUp' });
  expect(screen.getByRole('option', { selected: true }).textContent).toContain('item-23');
  await fireEvent.keyDown(listbox, { key: 'Enter' });
  expect(opened).toEqual(['item-23']);

  await fireEvent.keyDown(listbox, { key: 'End' });
  expect(screen.getByRole('option', { selected: true }).textContent).toContain('item-9999');
  expect(listbox.scrollTop).toBe(10_000 * 32 - 320);
  await fireEvent.keyDown(listbox, { key: 'ArrowDown' });
  expect(screen.getByRole('option', { selected: true }).textContent).toContain('item-9999');

  await fireEvent.keyDown(listbox, { key: 'Home' });
  expect(screen.getByRole('option', { selected: true }).textContent).toContain('item-0');
  expect(listbox.scrollTop).toBe(0);
});

test('a click selects and opens', async () => {
  const { opened } = setup();
  await fireEvent.click(screen.getAllByRole('option')[3]!);
  expect(opened).toEqual(['item-3']);
  expect(screen.getByRole('option', { selected: true }).textContent).toContain('item-3');
});
