import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/sha256.ts';

describe('sha256Hex', () => {
  // FIPS 180-2, appendix B.1: the one-block message "abc".
  const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

  it('hashes a string as UTF-8 and bytes as they are, to the same 64 hex digits', async () => {
    expect(await sha256Hex('abc')).toBe(ABC);
    expect(await sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(ABC);
    expect(await sha256Hex(new Uint8Array([0x61, 0x62, 0x63]).buffer)).toBe(ABC);
  });

  it('hashes only the bytes a view covers, not its whole buffer', async () => {
    const buffer = new Uint8Array([0x78, 0x61, 0x62, 0x63, 0x78]);
    expect(await sha256Hex(buffer.subarray(1, 4))).toBe(ABC);
  });

  it('encodes non-ASCII text as UTF-8 (FIPS 180-2 empty-string value for the empty input)', async () => {
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await sha256Hex('é')).toBe(await sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });
});
