/**
 * Exact two-sided McNemar test (McNemar 1947) conditional on the discordant pairs: with b and c the two
 * discordant counts and d = b + c, under H0 b ~ Binomial(d, 1/2) and
 *   p = min(1, 2 · P(X ≤ min(b, c))).
 * Summed in log space so it stays exact to ~1e-12 for any d (2^d overflows doubles beyond d ≈ 1023).
 * Known value: b = 60, c = 26 → p = 0.000317 (RAGFlip, Natural Questions BGE vs E5 at k = 10).
 */
export function exactMcNemar(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new RangeError(`exactMcNemar: counts must be non-negative integers, got ${b} and ${c}`);
  }
  const d = b + c;
  if (d === 0) return 1;
  const s = Math.min(b, c);
  // log C(d, i) − d·ln 2, accumulated term by term; log-sum-exp over i = 0..s.
  const ln2d = d * Math.LN2;
  const logs: number[] = [];
  let logC = 0;
  for (let i = 0; i <= s; i++) {
    if (i > 0) logC += Math.log(d - i + 1) - Math.log(i);
    logs.push(logC - ln2d);
  }
  const max = Math.max(...logs);
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - max);
  return Math.min(1, 2 * Math.exp(max) * sum);
}
