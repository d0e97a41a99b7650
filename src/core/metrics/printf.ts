/**
 * C printf number formatting as trec_eval's output uses it (`%6.4f`, `%3.2f`, `%ld`), byte for byte.
 *
 * `Number.prototype.toFixed` rounds the exact binary value correctly except at exact decimal ties, where
 * it rounds half up while glibc rounds half to even (0.03125 → "0.0313" vs trec_eval's "0.0312"). A
 * double is an exact tie at `d` digits only if it is a multiple of 2^-(d+1), so those few values are
 * rounded here with integer arithmetic; everything else goes through toFixed.
 */

/** `%.{digits}f` of glibc (round half to even on the exact binary value); NaN prints as trec_eval's "-nan". */
export function formatFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return '-nan'; // x86-64 0.0/0.0 is the negative default NaN; glibc prints "-nan"
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const scale = 2 ** (digits + 1);
  const scaled = x * scale; // exact: multiplying by a power of two
  if (Number.isInteger(scaled)) {
    const tenths = Math.abs(x) * 10 ** (digits + 1); // exact when x is a multiple of 2^-(d+1) and not huge
    if (Number.isSafeInteger(tenths) && tenths % 10 === 5) {
      let q = (tenths - 5) / 10;
      if (q % 2 === 1) q++; // half to even
      const neg = x < 0 || Object.is(x, -0);
      const s = q.toString().padStart(digits + 1, '0');
      const body = digits === 0 ? s : `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
      return neg ? `-${body}` : body;
    }
  }
  const s = x.toFixed(digits);
  return Object.is(x, -0) || (x < 0 && !s.startsWith('-')) ? `-${s}` : s;
}

/** `%6.4f` — the width never matters for values in [0, 10) and wider numbers print in full. */
export function formatValue(x: number): string {
  const s = formatFixed(x, 4);
  return s.length < 6 ? s.padStart(6, ' ') : s;
}

/** `%ld` of `(long) x`: truncation toward zero. */
export function formatLong(x: number): string {
  return Number.isFinite(x) ? Math.trunc(x).toString() : '-9223372036854775808';
}
