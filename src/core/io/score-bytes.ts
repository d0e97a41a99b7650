/**
 * Numbers and text straight from bytes, for the byte readers (core/io/run-top.ts, core/metrics' fast
 * eval): a TREC score parsed as C's atof parses it, without making a string of the line.
 */

/** Bytes as Latin-1 text (one char per byte): exact for ASCII. */
export const latin1 = (bytes: Uint8Array, s: number, e: number): string => {
  let out = '';
  for (let i = s; i < e; i++) out += String.fromCharCode(bytes[i]!);
  return out;
};

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/**
 * A decimal score from bytes, correctly rounded: with at most 15 significant digits and a decimal exponent
 * within ±22 both the digits and the power of ten are exact doubles, so one multiplication or division
 * rounds correctly (Clinger 1990) — the value C's atof gives. Anything else goes to the platform's parser.
 * NaN when the text is not a finite number.
 */
export function parseScoreBytes(bytes: Uint8Array, s: number, e: number): number {
  return scoreBytes(bytes, s, e) ? SCORE[0]! : Number.NaN;
}

/** Scratch of `scoreBytes`: the score. */
export const SCORE = new Float64Array(1);

/**
 * `parseScoreBytes` for the hot loops: the score goes to SCORE[0] and the result says whether there is
 * one. A double returned from a call that is not inlined is boxed (a heap allocation per run line: a
 * scavenge every ~250,000 lines on the 1M-line bench); one stored in a Float64Array is not.
 */
export function scoreBytes(bytes: Uint8Array, s: number, e: number): boolean {
  if (s >= e) return false;
  let i = s;
  let neg = false;
  const c0 = bytes[i];
  if (c0 === 45 || c0 === 43) {
    neg = c0 === 45;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let any = false;
  let dot = false;
  for (; i < e; i++) {
    const b = bytes[i]!;
    if (b === 46 && !dot) {
      dot = true;
      continue;
    }
    const d = b - 48;
    if (d < 0 || d > 9) break;
    any = true;
    if (digits > 0 || d > 0) digits++;
    mantissa = mantissa * 10 + d;
    if (dot) scale--;
  }
  if (i < e && (bytes[i] === 101 || bytes[i] === 69)) {
    i++;
    let eneg = false;
    if (bytes[i] === 45 || bytes[i] === 43) eneg = bytes[i++] === 45;
    let exp = 0;
    let expDigits = 0;
    while (i < e && expDigits < 6) {
      const d = bytes[i]! - 48;
      if (d < 0 || d > 9) break;
      exp = exp * 10 + d;
      expDigits++;
      i++;
    }
    if (expDigits === 0) return slowScore(bytes, s, e);
    scale += eneg ? -exp : exp;
  }
  if (!any || i !== e) return slowScore(bytes, s, e);
  if (digits > 15 || scale < -22 || scale > 22) return slowScore(bytes, s, e);
  const v = scale < 0 ? mantissa / POW10[-scale]! : mantissa * POW10[scale]!;
  SCORE[0] = neg ? -v : v;
  return true;
}

function slowScore(bytes: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (bytes[i]! >= 0x80) return false; // not ASCII: the text parser decides
  const v = Number(latin1(bytes, s, e));
  SCORE[0] = v;
  return Number.isFinite(v);
}
