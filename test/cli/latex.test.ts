/**
 * `flips --latex`: booktabs tables whose numbers are the JSON's. Every transitions row (each depth, each
 * candidate) is read back from the LaTeX and compared with `flips --json`; the measures table's nDCG@10 with
 * `fliplab eval`; run names with LaTeX's special characters come out escaped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('latex');
const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const QRELS = join(DL19, 'qrels.dl19-passage.txt');
const REF = join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt');

/** The body rows of every tabular whose caption matches `caption`, split into unescaped cells. */
function tables(tex: string, caption: RegExp): { caption: string; rows: string[][] }[] {
  const out: { caption: string; rows: string[][] }[] = [];
  for (const m of tex.matchAll(/\\caption\{(.*)\}[\s\S]*?\\midrule\n([\s\S]*?)\\bottomrule/g)) {
    if (!caption.test(m[1]!)) continue;
    const rows = m[2]!
      .trim()
      .split('\n')
      .map((l) =>
        l
          .replace(/ \\\\$/, '')
          .split(' & ')
          .map((c) => c.replace(/\\([%_&#$])/g, '$1')),
      );
    out.push({ caption: m[1]!, rows });
  }
  return out;
}

describe('flips --latex', () => {
  it('writes the transitions and measures with the JSON’s numbers, names escaped', async () => {
    // A candidate named with LaTeX's special characters: the 20 first documents of each query reversed.
    const lines = readFileSync(REF, 'utf8').trim().split('\n');
    const byQuery = new Map<string, string[]>();
    for (const l of lines) {
      const [q, , d] = l.split(/\s+/);
      if (!byQuery.has(q!)) byQuery.set(q!, []);
      byQuery.get(q!)!.push(d!);
    }
    const cand = join(tmp, 'cand.run');
    writeFileSync(
      cand,
      [...byQuery]
        .flatMap(([q, docs]) => [...docs.slice(0, 20).reverse(), ...docs.slice(20)].map((d, i) => `${q} Q0 ${d} ${i + 1} ${1000 - i} x`))
        .join('\n') + '\n',
    );
    const tex = join(tmp, 'tables.tex');
    const out = await cli(
      'flips',
      QRELS,
      '--reference',
      REF,
      '--candidate',
      cand,
      '--name',
      'bm25',
      '--name',
      'rev_20%#1',
      '--json',
      '--latex',
      tex,
    );
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as {
      depths: {
        k: number;
        candidates: {
          name: string;
          supported: number;
          preserved: number;
          broken: number;
          fixed: number;
          negative_flip_rate: { value: number; lo: number; hi: number };
        }[];
      }[];
    };
    const text = readFileSync(tex, 'utf8');
    expect(text).toContain('\\toprule');
    expect(text).toContain('rev\\_20\\%\\#1');
    const depthTables = tables(text, /^k = \d+/);
    expect(depthTables.map((t) => Number(/^k = (\d+)/.exec(t.caption)![1]))).toEqual(json.depths.map((d) => d.k));
    depthTables.forEach((t, i) => {
      const c = json.depths[i]!.candidates[0]!;
      const row = t.rows.find((r) => r[0] === c.name)!;
      expect(row.slice(1, 5).map(Number)).toEqual([c.supported, c.preserved, c.broken, c.fixed]);
      const nfr = c.negative_flip_rate;
      expect(row[7]).toBe(`${(100 * nfr.value).toFixed(1)}% [${(100 * nfr.lo).toFixed(1)}, ${(100 * nfr.hi).toFixed(1)}]`);
    });
    const measures = tables(text, /^Measures per run/)[0]!;
    const evalOut = await cli('eval', QRELS, REF, '-m', 'ndcg_cut.10');
    const ndcg = /ndcg_cut_10\s+all\s+(\S+)/.exec(evalOut.stdout)![1];
    const col = measures.rows[0]!.length;
    expect(col).toBeGreaterThan(2);
    const refRow = measures.rows.find((r) => r[0] === 'bm25')!;
    expect(refRow).toContain(ndcg);
  });
});
