/**
 * Parity with Anserini's published BEIR regression for SciFact (docs/regressions: beir-v1.0.0-scifact.flat
 * and .multifield, BM25 `-bm25 -removeQuery -hits 1000`, evaluated with `trec_eval -c`), through the CLI
 * exactly as a user runs it: `fliplab bm25 <scifact> --preset anserini --depth 1000`, then
 * `fliplab eval -c -m ndcg_cut.10 -m recall.100 -m recall.1000`.
 *
 * Also the collection statistics Anserini's regression configuration records for its indexes (total terms
 * 838,128 flat; 784,591 in the multifield `contents` field), which pin the analyzer on every document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { ANSERINI_PRESETS, buildAnseriniIndex, searchAnserini } from '../../src/core/retrieve/bm25-anserini.ts';
import { selectEvaluationQueries } from '../../src/core/io/validate.ts';
import { loadBeirFolder } from '../../src/node/files.ts';
import { SCIFACT_DIR } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const tmp = tempDir('anserini-parity');
const QRELS = join(SCIFACT_DIR, 'qrels/test.tsv');

/** `fliplab eval -c` summary lines → measure → value as printed (4 decimals). */
function summary(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.trim().split('\n')) {
    const [measure, scope, value] = line.split('\t').map((s) => s.trim());
    if (scope === 'all') out[measure!] = value!;
  }
  return out;
}

describe('BM25 --preset anserini on BEIR SciFact reproduces Anserini’s regression', () => {
  const cases = [
    { preset: 'anserini', tag: 'bm25-anserini', ndcg: '0.6789', r100: '0.9253', r1000: '0.9767' },
    { preset: 'anserini-multifield', tag: 'bm25-anserini-multifield', ndcg: '0.6647', r100: '0.9076', r1000: '0.9800' },
  ];
  for (const c of cases) {
    it(`${c.preset}: nDCG@10 ${c.ndcg}, R@100 ${c.r100}, R@1000 ${c.r1000}`, async () => {
      const run = join(tmp, `${c.preset}.run`);
      const ranked = await cli('bm25', SCIFACT_DIR, '--preset', c.preset, '--depth', '1000', '--out', run);
      expect(ranked.code).toBe(0);
      expect(ranked.stderr).toMatch(/300 queries × top 1000 over 5183 documents \(Lucene BM25 as Anserini runs it: k1 = 0\.9, b = 0\.4/);
      const lines = readFileSync(run, 'utf8').trimEnd().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^1 Q0 \\S+ 1 \\d+\\.?\\d* ${c.tag}$`));
      const evaluated = await cli('eval', '-c', '-m', 'ndcg_cut.10', '-m', 'recall.100', '-m', 'recall.1000', QRELS, run);
      expect(evaluated.code).toBe(0);
      expect(summary(evaluated.stdout)).toEqual({ ndcg_cut_10: c.ndcg, recall_100: c.r100, recall_1000: c.r1000 });
    });
  }

  it('indexes exactly as many terms as Anserini’s regression indexes record', async () => {
    const col = await loadBeirFolder(SCIFACT_DIR, 'test');
    const flat = buildAnseriniIndex(col.corpus, ANSERINI_PRESETS.anserini);
    expect(flat.fields.map((f) => [f.name, f.sumTotalTermFreq, f.docCount])).toEqual([['contents', 838128, 5183]]);
    const multi = buildAnseriniIndex(col.corpus, ANSERINI_PRESETS['anserini-multifield']);
    expect(multi.fields[0]!.sumTotalTermFreq).toBe(784591);
    // the pruned and the exhaustive search agree on every query, at every depth the lab and CLI use
    const queries = selectEvaluationQueries(col.qrels, col.queries).map((i) => col.queries.texts[i]!);
    for (const index of [flat, multi]) {
      for (const depth of [10, 100, 1000]) {
        for (const q of queries) {
          const a = searchAnserini(index, q, depth, { strategy: 'exhaustive' });
          const b = searchAnserini(index, q, depth, { strategy: 'maxscore' });
          expect(Array.from(b.docs)).toEqual(Array.from(a.docs));
          expect(Array.from(b.scores)).toEqual(Array.from(a.scores));
        }
      }
    }
  });

  it('refuses an unknown preset and a preset with --rm3, with exit 2', async () => {
    const unknown = await cli('bm25', SCIFACT_DIR, '--preset', 'lucene');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('fliplab: --preset: unknown recipe "lucene"; expected one of anserini, anserini-multifield\n');
    const rm3 = await cli('bm25', SCIFACT_DIR, '--preset', 'anserini', '--rm3');
    expect(rm3.code).toBe(2);
    expect(rm3.stderr).toMatch(/--rm3 runs on the paper's BM25; it does not combine with --preset/);
  });
});
