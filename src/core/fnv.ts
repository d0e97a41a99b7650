/**
 * FNV-1a (32-bit), the one hash of fliplab's hot loops: docids in the byte readers (core/io/run-top.ts,
 * core/metrics/byte-input.ts), terms in the term table (core/text/term-table.ts), and the short fingerprint
 * of an encoder recipe's run id (lab/retriever-ids.ts). Loops that hash as they scan inline the step
 * `Math.imul(h ^ unit, FNV_PRIME)` from these constants.
 */
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** The hash after one more unit (a byte, or a UTF-16 code unit). */
export const fnvStep = (h: number, unit: number): number => Math.imul(h ^ unit, FNV_PRIME);

/** FNV-1a of bytes[s, e) (signed 32-bit; `>>> 0` for the unsigned value). */
export function fnv1a(bytes: Uint8Array, s = 0, e = bytes.length): number {
  let h = FNV_OFFSET;
  for (let b = s; b < e; b++) h = Math.imul(h ^ bytes[b]!, FNV_PRIME);
  return h;
}
