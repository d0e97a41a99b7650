/**
 * `fliplab judge` end to end on BEIR SciFact (about one judged passage per query, so its holes are real) with the
 * generated judges: a cross-encoder (test/fixtures: tiny-cross-encoder) and an LLM judge (tiny-gpt2, UMBRELA).
 * The holes behind flips come first, the layer and its provenance are written, a second run judges nothing
 * (its cache), the layer feeds `flips --model-qrels`, and a model that is neither kind is refused by name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODELS_DIR,
  makeJudgeFixtures,
  makeModelFixtures,
  makeReaderFixtures,
  TINY_CROSS_ENCODER,
  TINY_READER,
} from '../../scripts/models/make-fixtures.ts';
import { cli } from '../support/cli.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('judge');
const SCIFACT = join(SHARED_DATA, 'scifact');
const BM25 = join(tmp, 'bm25.run');
const CAND = join(tmp, 'cand.run');
const TIMEOUT_MS = 120_000;

beforeAll(async () => {
  await Promise.all([makeJudgeFixtures(), makeReaderFixtures(), makeModelFixtures()]);
  const bm25 = await cli('bm25', SCIFACT, '--depth', '100', '--out', BM25);
  expect(bm25.code, bm25.stderr).toBe(0);
  // A candidate that reverses BM25's top 10 on every other query: it breaks and fixes some.
  const lists = new Map<string, string[]>();
  for (const line of readFileSync(BM25, 'utf8').trim().split('\n')) {
    const [q, , d] = line.split(/\s+/);
    if (!lists.has(q!)) lists.set(q!, []);
    lists.get(q!)!.push(d!);
  }
  const lines: string[] = [];
  [...lists].forEach(([q, docs], i) => {
    const order = i % 2 === 1 ? [...docs.slice(10, 20), ...docs.slice(0, 10), ...docs.slice(20)] : docs;
    order.forEach((d, r) => lines.push(`${q} Q0 ${d} ${r + 1} ${100 - r} cand`));
  });
  writeFileSync(CAND, `${lines.join('\n')}\n`);
}, TIMEOUT_MS);

interface Provenance {
  judge: { kind: string; model: string };
  prompt?: { id: string };
  thresholds: number[] | null;
  thresholds_from: string | null;
  scale: { min: number; max: number };
  pairs: { holes: number; holes_behind_flips: number; sample_fit: number; sample_audit: number };
  cached: number;
  judged: number;
  audit: { pairs: number; agreement: number; kappa: number | null; summary: string } | null;
}

describe('fliplab judge', () => {
  it(
    'judges the holes behind flips first, writes the layer and its provenance, and a rerun judges nothing',
    async () => {
      const out = join(tmp, 'ce.qrels');
      const args = [
        'judge',
        SCIFACT,
        '--run',
        BM25,
        '--run',
        CAND,
        '--judge',
        join(DEFAULT_MODELS_DIR, TINY_CROSS_ENCODER.id),
        '--k',
        '5',
        '--budget',
        '120',
        '--audit',
        '40',
        '--thresholds',
        '0.44',
        '--out',
        out,
      ];
      const first = await cli(...args);
      expect(first.code, first.stderr).toBe(0);
      const p = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as Provenance;
      expect(p.judge.kind).toBe('cross-encoder');
      expect(p.scale).toEqual({ min: 0, max: 1 });
      expect(p.thresholds).toEqual([0.44]);
      expect(p.thresholds_from).toBe('--thresholds');
      expect(p.pairs.holes).toBe(120);
      expect(p.pairs.holes_behind_flips).toBeGreaterThan(0);
      expect(p.pairs.sample_fit + p.pairs.sample_audit).toBe(40);
      expect(p.judged).toBe(160);
      // SciFact's people judged only relevant passages: κ is undefined, the agreement is not.
      expect(p.audit!.pairs).toBe(20);
      expect(p.audit!.kappa).toBe(0);
      expect(p.audit!.summary).toMatch(
        /^On 20 pairs people also judged, the model agrees on \d+%: people graded every one relevant, so κ is 0 by construction\.$/,
      );
      expect(p.audit!.agreement).toBeGreaterThanOrEqual(0);
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(160);
      for (const line of lines) expect(line).toMatch(/^\S+ 0 \S+ [01]$/);
      // Cached verdicts carry the score each pair got.
      const cached = readFileSync(`${out}.judgments.jsonl`, 'utf8').trim().split('\n');
      expect(cached).toHaveLength(160);

      const again = await cli(...args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('(160 from the cache, 0 judged now)');
      expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual(lines);

      // The layer under people's judgments.
      const flips = await cli(
        'flips',
        join(SCIFACT, 'qrels', 'test.tsv'),
        '--model-qrels',
        out,
        '--reference',
        BM25,
        '--candidate',
        CAND,
        '--depths',
        '5',
        '--json',
      );
      expect(flips.code, flips.stderr).toBe(0);
      const report = JSON.parse(flips.stdout) as {
        model_labels: { filled: number };
        depths: { candidates: { broken_on_model_labels: number }[] }[];
      };
      expect(report.model_labels.filled).toBeGreaterThan(100);
      expect(report.depths[0]!.candidates[0]!.broken_on_model_labels).toBeGreaterThanOrEqual(0);
    },
    TIMEOUT_MS,
  );

  it(
    'judges with an LLM and the UMBRELA prompt, grades on the collection’s scale',
    async () => {
      const out = join(tmp, 'llm.qrels');
      const r = await cli(
        'judge',
        SCIFACT,
        '--run',
        BM25,
        '--judge',
        join(DEFAULT_MODELS_DIR, TINY_READER.id),
        '--k',
        '3',
        '--budget',
        '6',
        '--audit',
        '4',
        '--out',
        out,
      );
      expect(r.code, r.stderr).toBe(0);
      const p = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as Provenance;
      expect(p.judge.kind).toBe('llm');
      expect(p.prompt!.id).toBe('umbrela-v1');
      expect(p.thresholds).toBeNull();
      const records = readFileSync(`${out}.judgments.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { probabilities: number[]; score: number });
      expect(records).toHaveLength(10);
      for (const rec of records) {
        expect(rec.probabilities).toHaveLength(4);
        expect(rec.probabilities.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 6);
      }
      for (const line of readFileSync(out, 'utf8').trim().split('\n')) expect(line).toMatch(/ [01]$/);
    },
    TIMEOUT_MS,
  );

  it('refuses a judge that is neither a classifier nor a causal LM, naming its architectures', async () => {
    const r = await cli(
      'judge',
      SCIFACT,
      '--run',
      BM25,
      '--judge',
      join(DEFAULT_MODELS_DIR, 'fliplab/tiny-bert'),
      '--out',
      join(tmp, 'x.qrels'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tiny-bert cannot judge: its config.json says architectures ["BertModel"]');
  });
});
