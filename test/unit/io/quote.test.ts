import { describe, expect, it } from 'vitest';
import { quote } from '../../../src/core/io/errors.ts';

describe('quote: a short, printable excerpt for error messages', () => {
  it('quotes text as JSON, tabs escaped, and cuts long lines with an ellipsis', () => {
    expect(quote('q1\tQ0 d1')).toBe('"q1\\tQ0 d1"');
    const long = 'x'.repeat(100);
    expect(quote(long)).toBe(JSON.stringify(`${'x'.repeat(60)}…`));
    expect(quote(long, 10)).toBe(JSON.stringify(`${'x'.repeat(10)}…`));
  });

  it('shows undecodable and control characters as "?" and names mostly-binary input', () => {
    // What a binary file's bytes look like once decoded as UTF-8: replacement characters and controls.
    const junk = new TextDecoder().decode(Uint8Array.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x41, 0x9c, 0x02]));
    const q = quote(junk);
    expect([...q].some((c) => c === '\uFFFD' || c.charCodeAt(0) < 0x09)).toBe(false);
    expect(q).toMatch(/^"[?A]+" \(binary data, not text\)$/);
    // One stray control character in a text line is shown, not called binary.
    expect(quote('q1 Q0 d\u0007 1 2.0 tag')).toBe('"q1 Q0 d? 1 2.0 tag"');
  });

  it('never cuts a character in two (astral characters count as one)', () => {
    expect(quote('😀'.repeat(5), 3)).toBe(JSON.stringify('😀😀😀…'));
  });
});
