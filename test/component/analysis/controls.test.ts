/** The analysis controls: k selector, support-label toggle, and the validated depth editor. */
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, test, vi } from 'vitest';
import AnalysisControls from '../../../src/app/views/analysis/AnalysisControls.svelte';
import type { SupportLabel } from '../../../src/app/types.ts';

function setup(overrides: { depths?: number[]; k?: number; label?: SupportLabel; maxDepth?: number } = {}) {
  const onk = vi.fn<(k: number) => void>();
  const onlabel = vi.fn<(label: SupportLabel) => void>();
  const ondepths = vi.fn<(depths: number[]) => void>();
  const props = { depths: [1, 5, 10, 20, 50], k: 10, label: 'any' as SupportLabel, onk, onlabel, ondepths, ...overrides };
  const result = render(AnalysisControls, props);
  const input = screen.getByLabelText('Depths') as HTMLInputElement;
  const apply = async (text: string) => {
    await fireEvent.input(input, { target: { value: text } });
    await fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
  };
  return { ...result, onk, onlabel, ondepths, input, apply };
}

describe('depth editor', () => {
  test('shows the current list', () => {
    const { input } = setup();
    expect(input.value).toBe('1, 5, 10, 20, 50');
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });

  test('"10, 1, 5" applies [1, 5, 10]', async () => {
    const { apply, ondepths } = setup();
    await apply('10, 1, 5');
    expect(ondepths).toHaveBeenCalledTimes(1);
    expect(ondepths).toHaveBeenCalledWith([1, 5, 10]);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  test.each([
    ['0, 5', /positive integers, got 0/],
    ['a,b', /"a" is not a number/],
    ['', /at least one depth/],
  ])('rejects %j in place and keeps the last valid list', async (text, message) => {
    const { apply, ondepths, input } = setup();
    await apply(text);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toMatch(message);
    expect(alert.textContent).toMatch(/Still using 1, 5, 10, 20, 50/);
    expect(ondepths).not.toHaveBeenCalled();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toContain(alert.id);
    // The user's text stays for correcting; a valid list then clears the error.
    expect(input.value).toBe(text);
    await apply('1, 5');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(ondepths).toHaveBeenCalledWith([1, 5]);
  });

  test('a change event (leaving the field) applies too, once per new list', async () => {
    const { input, ondepths } = setup();
    await fireEvent.input(input, { target: { value: '5,1' } });
    await fireEvent.change(input);
    await fireEvent.change(input);
    expect(ondepths).toHaveBeenCalledTimes(1);
    expect(ondepths).toHaveBeenCalledWith([1, 5]);
  });

  test('depths beyond maxDepth are refused', async () => {
    const { apply, ondepths } = setup({ maxDepth: 50 });
    await apply('1, 100');
    expect(screen.getByRole('alert').textContent).toMatch(/100 exceeds 50/);
    expect(ondepths).not.toHaveBeenCalled();
  });

  test('an equal list arriving again (live report updates) keeps what the user is typing', async () => {
    const { rerender, input, apply } = setup();
    await apply('0, 5');
    await rerender({ depths: [1, 5, 10, 20, 50] });
    expect(input.value).toBe('0, 5');
    expect(screen.getByRole('alert').textContent).toMatch(/got 0/);
  });

  test('follows a new depth list from outside', async () => {
    const { rerender, input } = setup();
    await rerender({ depths: [2, 3] });
    expect(input.value).toBe('2, 3');
  });
});

describe('k and label', () => {
  test('the k selector offers the depth list and calls onk', async () => {
    const { onk } = setup();
    const select = screen.getByLabelText('Depth k') as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['1', '5', '10', '20', '50']);
    expect(select.value).toBe('10');
    await fireEvent.change(select, { target: { value: '5' } });
    expect(onk).toHaveBeenCalledWith(5);
  });

  test('the label toggle calls onlabel with strict and back with any', async () => {
    const { onlabel, rerender } = setup();
    const strict = screen.getByRole('radio', { name: /strict/ }) as HTMLInputElement;
    const any = screen.getByRole('radio', { name: /any relevant/ }) as HTMLInputElement;
    expect(any.checked).toBe(true);
    expect(strict.checked).toBe(false);
    await fireEvent.click(strict);
    expect(onlabel).toHaveBeenLastCalledWith('strict');
    await rerender({ label: 'strict' });
    expect(strict.checked).toBe(true);
    await fireEvent.click(any);
    expect(onlabel).toHaveBeenLastCalledWith('any');
    expect(onlabel).toHaveBeenCalledTimes(2);
  });
});

describe('relevance level', () => {
  test('hidden without onlevel; with it, shows the level and reports integer changes only', async () => {
    setup();
    expect(screen.queryByLabelText('Relevant if grade ≥')).toBeNull();
    const onlevel = vi.fn<(level: number) => void>();
    render(AnalysisControls, {
      depths: [1, 10],
      k: 10,
      label: 'any' as SupportLabel,
      onk: vi.fn(),
      onlabel: vi.fn(),
      ondepths: vi.fn(),
      level: 2,
      onlevel,
    });
    const input = screen.getByLabelText('Relevant if grade ≥') as HTMLInputElement;
    expect(input.value).toBe('2');
    await fireEvent.change(input, { target: { value: '3' } });
    expect(onlevel).toHaveBeenCalledWith(3);
    await fireEvent.change(input, { target: { value: '1.5' } });
    expect(onlevel).toHaveBeenCalledTimes(1);
  });
});
