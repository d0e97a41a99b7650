/**
 * Holm (1979) step-down adjustment: sort p ascending, adjusted p_(j) = max_{i ≤ j} min(1, (m − i + 1)·p_(i)),
 * returned in input order. Monotone in the sorted order and capped at 1. Ties keep input order (stable
 * sort), which cannot change the adjusted values. Example: [0.01, 0.2, 0.001] → [0.02, 0.2, 0.003].
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]!);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[idx]!));
    adjusted[idx] = running;
  });
  return adjusted;
}
