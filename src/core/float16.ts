/**
 * IEEE 754 binary16 ("half") conversions: vector packs store float16 rows with them, and the generated fp16
 * model fixtures round their weights with them. Round to nearest, ties to even; ±∞ and NaN kept; values past
 * the largest half (65504 plus half an ulp) become ±∞.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The binary16 bit pattern nearest to `x` (rounded as float32 first). */
export function toFloat16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half (or zero): units of 2^-24. Below 2^-25 everything rounds to zero.
    if (e < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - e;
    let half = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1) === 1)) half++;
    return sign | half; // a carry out of the mantissa lands on exponent 1: still the right value
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++; // a carry may round up to ∞: correct
  return sign | half;
}

/** The value of a binary16 bit pattern. */
export function float16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}
