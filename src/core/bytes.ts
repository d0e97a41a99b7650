/** `n` bytes in the largest of `units` (each `base` times the last) that keeps the value ≥ 1; null below one unit. */
function scaled(n: number, base: number, units: readonly string[]): { value: number; unit: string } | null {
  if (n < base) return null;
  let value = n / base;
  let u = 0;
  while (value >= base && u < units.length - 1) {
    value /= base;
    u++;
  }
  return { value, unit: units[u]! };
}

/** Byte counts for people: "812 B", "4.2 MiB", "1.3 GiB" (binary units, one decimal below 10). */
export function formatBytes(n: number): string {
  const s = scaled(n, 1024, ['KiB', 'MiB', 'GiB', 'TiB']);
  return s === null ? `${n} B` : `${s.value.toFixed(s.value < 10 ? 1 : 0)} ${s.unit}`;
}

/** Decimal sizes as the Hugging Face hub shows them ("711 kB", "337 MB", "1.34 GB"): three significant digits. */
export function formatSize(n: number): string {
  const s = scaled(n, 1000, ['kB', 'MB', 'GB', 'TB']);
  return s === null ? `${n} B` : `${Number(s.value.toPrecision(3))} ${s.unit}`;
}
