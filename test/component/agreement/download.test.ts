import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { download, safeFileName } from '../../../src/app/download.ts';

describe('safeFileName', () => {
  it('keeps letters, digits, dots, dashes and underscores of any script', () => {
    expect(safeFileName('flips_scifact-k10.csv')).toBe('flips_scifact-k10.csv');
    expect(safeFileName('Straße Überblick.md')).toBe('Straße-Überblick.md');
  });
  it('removes path separators, hidden-file dots, control characters and reserved names', () => {
    expect(safeFileName('../../etc/passwd')).toBe('etc-passwd');
    expect(safeFileName('a\u0000b\nc:"d"<e>|f?.txt')).toBe('a-b-c-d-e-f.txt');
    expect(safeFileName('.hidden')).toBe('hidden');
    expect(safeFileName('CON.txt')).toBe('_CON.txt');
    expect(safeFileName('   ')).toBe('download');
    expect(safeFileName('')).toBe('download');
  });
  it('caps the length at 120 and keeps the extension', () => {
    const s = safeFileName(`${'x'.repeat(300)}.html`);
    expect(s.length).toBe(120);
    expect(s.endsWith('.html')).toBe(true);
  });
});

describe('download', () => {
  const created: Blob[] = [];
  let clicks: { href: string; download: string; inDocument: boolean }[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    created.length = 0;
    clicks = [];
    URL.createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return `blob:test/${created.length}`;
    });
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push({ href: this.href, download: this.download, inDocument: document.body.contains(this) });
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('clicks a download link to an object URL of the content, then revokes the URL and removes the link', async () => {
    download('flips report.csv', 'qid,state\r\nq1,broken\r\n', 'text/csv');
    expect(clicks).toEqual([{ href: 'blob:test/1', download: 'flips-report.csv', inDocument: true }]);
    expect(created[0]!.type).toBe('text/csv');
    expect(await created[0]!.text()).toBe('qid,state\r\nq1,broken\r\n');
    expect(document.querySelectorAll('a').length).toBe(0);
    expect(URL.revokeObjectURL).not.toHaveBeenCalled();
    vi.runAllTimers();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:test/1');
  });

  it('accepts bytes and Blobs as they are', async () => {
    download('x.bin', new Uint8Array([1, 2, 255]), 'application/octet-stream');
    expect(new Uint8Array(await created[0]!.arrayBuffer())).toEqual(new Uint8Array([1, 2, 255]));
    const blob = new Blob(['<svg/>'], { type: 'image/svg+xml' });
    download('p.svg', blob, 'image/svg+xml');
    expect(created[1]).toBe(blob);
  });
});
