/**
 * Resident memory of the browsers this process started, with all their processes (renderers, GPU, utility),
 * in MB: every descendant of this process, from Linux /proc (other browsers on the machine, a parallel test
 * run's say, are not counted). Used by the memory e2e tests and the encode benchmarks.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function browserRssMB(): number {
  return browserMemoryMB().rss;
}

/**
 * The same processes' resident memory (`rss`) and the part of it that is their own (`anon`: RssAnon + RssShmem):
 * without the file pages they map from disk — Chromium's binary and libraries in every process, and the files
 * IndexedDB's LevelDB maps to read them, which are the OS's page cache, shared and reclaimable.
 */
export function browserMemoryMB(): { rss: number; anon: number; anonByType: Record<string, number> } {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  const anon = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      parent.set(Number(entry), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      rss.set(Number(entry), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      const own = Number(/^RssAnon:\s+(\d+)/m.exec(status)?.[1] ?? 0) + Number(/^RssShmem:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      anon.set(Number(entry), own);
    } catch {
      // the process ended while listed
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  let own = 0;
  const byType: Record<string, number> = {};
  for (const [pid, k] of rss) {
    if (!descends(pid)) continue;
    kb += k;
    own += anon.get(pid) ?? 0;
    // Chromium names each child's role on its command line (--type=renderer, gpu-process, utility); the browser has none.
    let type = 'other';
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      type = /--type=([\w-]+)/.exec(cmdline)?.[1] ?? (/chrom/i.test(cmdline) ? 'browser' : 'other');
    } catch {
      // ended meanwhile
    }
    byType[type] = Math.round((byType[type] ?? 0) + (anon.get(pid) ?? 0) / 1024);
  }
  return { rss: kb / 1024, anon: own / 1024, anonByType: byType };
}
