/**
 * The one way a typed array is grown by hand in src/core: to at least twice its length (or `minLength`, if
 * more), contents copied. Doubling keeps appends amortised O(1); every builder and parser grows the same
 * way, so growth policy cannot drift from one file to the next.
 */

type GrowableArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/**
 * `array` itself when it holds at least `minLength` elements; else a new array of the same type, of length
 * max(`minLength`, 2 · length, 1), that starts with a copy of `array` (the rest zero). Hot loops test the
 * length themselves and call this only to grow.
 */
export function grow<T extends GrowableArray>(array: T, minLength: number): T {
  if (minLength <= array.length) return array;
  const out = new (array.constructor as new (length: number) => T)(Math.max(minLength, array.length * 2, 1));
  out.set(array);
  return out;
}
