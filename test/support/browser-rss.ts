/**
 * Resident memory of the browsers this process started, with all their processes (renderers, GPU, utility),
 * in MB: every descendant of this process, from Linux /proc (other browsers on the machine, a parallel test
 * run's say, are not counted). Used by the memory e2e tests and the encode benchmarks.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function browserRssMB(): number {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      parent.set(Number(entry), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      rss.set(Number(entry), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    } catch {
      // the process ended while listed
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const [pid, k] of rss) if (descends(pid)) kb += k;
  return kb / 1024;
}
