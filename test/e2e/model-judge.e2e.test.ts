/**
 * A model fills SciFact's holes in the lab (production build, Debian's chromium, SciFact from a local hub mirror,
 * about one judged passage per query, so its holes are real). The judge presets are served by the generated
 * judges: `Xenova/ms-marco-MiniLM-L-6-v2` holds the tiny cross-encoder, `onnx-community/Qwen2.5-0.5B-Instruct` the
 * tiny decoder (the LLM shape, UMBRELA prompt). BM25 against BM25 + RM3:
 *   - the cross-encoder labels the holes, the numbers read them, and the headline says how many flips rest on
 *     them; its scores equal onnxruntime-node's on the same pairs (≤ 1e-4); the lab's flips equal
 *     `fliplab flips --model-qrels` on the layer and the runs the lab exports;
 *   - one model label overruled by hand moves the numbers;
 *   - a reload brings the layer back from IndexedDB with nothing judged again;
 *   - the LLM judge's P(0…3) equal Node's on the same pairs.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODELS_DIR,
  makeJudgeFixtures,
  makeReaderFixtures,
  TINY_CROSS_ENCODER,
  TINY_READER,
} from '../../scripts/models/make-fixtures.ts';
import { JUDGE_PRESETS } from '../../src/encoders/judge-presets.ts';
import { loadJudge } from '../../src/encoders/judge.ts';
import { writeBeirMirror } from '../support/beir-mirror.ts';
import type { HubServer } from '../support/hub-server.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { cli, e2eSetup, linkFixtureModels, saveDownload, type E2e } from './harness.ts';
import { hubVisitor, judgeWith, storedVerdicts } from './model-judging.ts';

const CE_REPO = JUDGE_PRESETS['ms-marco-minilm'].model;
const LLM_REPO = JUDGE_PRESETS['qwen2.5-0.5b-umbrela'].model;
const SCIFACT = join(SHARED_DATA, 'scifact');

let work: string;
let e2e: E2e;
let server: HubServer;

beforeAll(async () => {
  await Promise.all([makeJudgeFixtures(), makeReaderFixtures()]);
  e2e = await e2eSetup({
    name: 'model-judge',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      const mirror = join(work, 'mirror');
      await writeBeirMirror(mirror, { sourceDir: SCIFACT, name: 'scifact', layout: 'jsonl.gz' });
      const models = await linkFixtureModels(join(work, 'models'), [
        [CE_REPO, TINY_CROSS_ENCODER.id],
        [LLM_REPO, TINY_READER.id],
      ]);
      return { datasetsRoot: mirror, modelsRoot: models };
    },
  });
  ({ server } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const headline = (p: Page) => p.getByTestId('headline').textContent();
const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');
const save = async (p: Page, click: () => Promise<void>) => (await saveDownload(p, work, click)).text;

/** SciFact's query and passage texts, as the judge reads them. */
async function scifactTexts(): Promise<{ query: Map<string, string>; passage: Map<string, string> }> {
  const query = new Map<string, string>();
  for (const line of (await readFile(join(SCIFACT, 'queries.jsonl'), 'utf8')).trim().split('\n')) {
    const q = JSON.parse(line) as { _id: string; text: string };
    query.set(q._id, q.text);
  }
  const passage = new Map<string, string>();
  for (const line of (await readFile(join(SCIFACT, 'corpus.jsonl'), 'utf8')).trim().split('\n')) {
    const d = JSON.parse(line) as { _id: string; title: string; text: string };
    passage.set(d._id, d.title === '' ? d.text : `${d.title}. ${d.text}`);
  }
  return { query, passage };
}

/** A fresh visitor on SciFact with BM25 against BM25 + RM3. */
async function openScifact(): Promise<{ p: Page; close: () => Promise<void> }> {
  const context = await hubVisitor(e2e);
  const p = await context.newPage();
  await p.goto(server.url);
  await p.getByTestId('catalog-scifact').click();
  await expect.poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 }).toMatch(/5,183 passages/);
  await p.getByTestId('add-rm3').click();
  await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('bm25,bm25-rm3');
  return { p, close: () => context.close() };
}

describe('a model layer imported from a file', () => {
  it('refuses a grade outside the scale with file and line, counts unknown ids, and keeps the layer over a reload', async () => {
    const { p, close } = await openScifact();
    try {
      const bad = join(work, 'bad-model.qrels');
      await writeFile(bad, '1 0 31715818 1\n1 0 13734012 3\n');
      await p.getByTestId('import-model-qrels').setInputFiles(bad);
      await expect
        .poll(() => p.getByTestId('judge-error').textContent(), { timeout: 30_000 })
        .toMatch(/bad-model\.qrels, line 2: grade 3 is outside the collection's scale 0–1/);

      // A file made elsewhere: every passage of BM25 + RM3's top 10 that BM25's top 10 lacks labelled relevant, plus two
      // unknown ids.
      const top10 = async (run: string) => {
        const lists = new Map<string, string[]>();
        await p.getByTestId('export-run-select').selectOption(run);
        for (const line of (await save(p, () => p.getByTestId('export-run').click())).trim().split('\n')) {
          const [q, , d, r] = line.split(/\s+/);
          if (Number(r) <= 10) lists.set(q!, [...(lists.get(q!) ?? []), d!]);
        }
        return lists;
      };
      const bm25 = await top10('bm25');
      const rm3 = await top10('bm25-rm3');
      const lines = [...rm3].flatMap(([q, docs]) => docs.filter((d) => !bm25.get(q)?.includes(d)).map((d) => `${q} 0 ${d} 1`));
      lines.push('no-such-query 0 31715818 1', '1 0 no-such-passage 1');
      const good = join(work, 'umbrela.qrels');
      await writeFile(good, `${lines.join('\n')}\n`);
      await p.getByTestId('import-model-qrels').setInputFiles(good);
      await expect
        .poll(() => p.getByTestId('import-model-note').textContent(), { timeout: 30_000 })
        .toBe(
          `${(lines.length - 2).toLocaleString('en-US')} labels read from umbrela.qrels; left out: 1 label for 1 query the collection ` +
            'does not have, 1 label for passages it does not have.',
        );
      // Every query RM3 adds a passage to is supported by it: it breaks none at k = 10, and its new fixes rest on the file.
      await expect.poll(() => headline(p), { timeout: 30_000 }).toMatch(/breaks 0 of/);
      expect(await headline(p)).toMatch(/\d+ of the \d+ fixed queries rest on model labels|All \d+ fixed queries rest on model labels/);
      expect(await p.getByTestId('judge-layer-summary').textContent()).toMatch(/imported from umbrela\.qrels/);

      // A third run: the audit says whether the ordering of the runs survives, as judge-audit does from the same files.
      await p.getByTestId('add-ql').click();
      await expect
        .poll(() => p.getByTestId('judge-audit-sentence').textContent(), { timeout: 60_000 })
        .toMatch(/the order of the 3 runs holds with τ = -?[\d.]+ \(τ_AP = -?[\d.]+\)\.$/);
      const runFiles: string[] = [];
      for (const run of ['bm25', 'bm25-rm3', 'ql']) {
        await p.getByTestId('export-run-select').selectOption(run);
        const path = join(work, `${run}.run`);
        await writeFile(path, await save(p, () => p.getByTestId('export-run').click()));
        runFiles.push(path);
      }
      // The layer as the lab holds it (the unknown ids left out).
      const held = join(work, 'held.qrels');
      await writeFile(held, await save(p, () => p.getByTestId('export-model-qrels').click()));
      expect((await readFile(held, 'utf8')).trim().split('\n')).toHaveLength(lines.length - 2);
      const audit = await cli([
        'judge-audit',
        join(SCIFACT, 'qrels', 'test.tsv'),
        held,
        ...runFiles.flatMap((r) => ['--run', r]),
        '--json',
      ]);
      expect(audit.code, audit.stderr).toBe(0);
      const systems = (JSON.parse(audit.stdout) as { systems: { tau: number; tau_ap: number } }).systems;
      expect(await p.getByTestId('judge-audit-sentence').textContent()).toContain(
        `the order of the 3 runs holds with τ = ${systems.tau.toFixed(2)} (τ_AP = ${systems.tau_ap.toFixed(2)}).`,
      );

      await p.reload();
      await expect
        .poll(() => p.getByTestId('judge-layer-summary').textContent(), { timeout: 60_000 })
        .toMatch(/imported from umbrela\.qrels/);
      await expect.poll(() => headline(p), { timeout: 30_000 }).toMatch(/breaks 0 of/);
    } finally {
      await close();
    }
  }, 200_000);
});

describe('model judgments in the lab', () => {
  it('fills the holes, says which flips rest on the labels, equals the CLI and Node, survives a reload', async () => {
    const { p, close } = await openScifact();
    try {
      const before = await headline(p);
      expect(before).not.toMatch(/model labels/);
      // Not offered before there are labels.
      expect(await p.getByTestId('holes-model').isDisabled()).toBe(true);

      // The cross-encoder, its threshold near the top decile of its scores on SciFact: some holes become relevant.
      await judgeWith(p, 'ms-marco-minilm', 4000, 40, '-0.003');
      await expect.poll(() => p.getByTestId('holes-model').isChecked(), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => headline(p), { timeout: 30_000 }).toMatch(/rests? on model labels/);
      const sentence = (await p.getByTestId('judge-audit-sentence').textContent()) ?? '';
      // SciFact's people judged only relevant passages: κ is 0 by construction, the agreement is said instead.
      expect(sentence).toMatch(/^On 20 pairs people also judged, the model agrees on \d+%: people graded every one relevant/);
      expect(await p.getByTestId('judge-layer-summary').textContent()).toMatch(/labels by MS MARCO MiniLM-L-6 cross-encoder at k = 10/);

      // The lab's numbers against `fliplab flips --model-qrels` on what the lab exports.
      const report = JSON.parse(await save(p, () => p.getByTestId('export-report-json').click())) as {
        depths: {
          k: number;
          candidates: { name: string; broken: number; fixed: number; broken_on_model_labels: number; fixed_on_model_labels: number }[];
        }[];
      };
      const exported = report as unknown as { model_labels: { source: string; filled: number; set_aside: number } };
      expect(exported.model_labels.source).toBe('MS MARCO MiniLM-L-6 cross-encoder');
      expect(exported.model_labels.filled).toBeGreaterThan(1000);
      // The sample of people's pairs was re-judged, and people's grades kept.
      expect(exported.model_labels.set_aside).toBe(40);
      const markdown = await save(p, () => p.getByTestId('export-markdown').click());
      expect(markdown).toContain('Holes filled by model labels');
      expect(markdown).toContain('| broken on model labels | fixed on model labels |');
      const layer = join(work, 'model.qrels');
      await writeFile(layer, await save(p, () => p.getByTestId('export-model-qrels').click()));
      const provenance = JSON.parse(await save(p, () => p.getByTestId('export-model-provenance').click())) as {
        judge: { model: string };
        thresholds: number[];
        audit: { pairs: number };
      };
      expect(provenance.judge.model).toBe(CE_REPO);
      expect(provenance.thresholds).toEqual([-0.003]);
      expect(provenance.audit.pairs).toBe(20);
      const runs: Record<string, string> = {};
      for (const name of ['bm25', 'bm25-rm3']) {
        await p.getByTestId('export-run-select').selectOption(name);
        runs[name] = join(work, `${name}.trec`);
        await writeFile(runs[name]!, await save(p, () => p.getByTestId('export-run').click()));
      }
      const flips = await cli([
        'flips',
        join(SCIFACT, 'qrels', 'test.tsv'),
        '--model-qrels',
        layer,
        '--reference',
        runs['bm25']!,
        '--candidate',
        runs['bm25-rm3']!,
        '--name',
        'bm25',
        '--name',
        'bm25-rm3',
        '--depths',
        report.depths.map((d) => d.k).join(','),
        '--json',
      ]);
      expect(flips.code, flips.stderr).toBe(0);
      const pick = (r: typeof report) =>
        r.depths.map((d) => {
          const c = d.candidates[0]!;
          return [d.k, c.broken, c.fixed, c.broken_on_model_labels, c.fixed_on_model_labels];
        });
      expect(pick(report)).toEqual(pick(JSON.parse(flips.stdout) as typeof report));
      const resting = report.depths.find((d) => d.k === 10)!.candidates[0]!;
      expect(resting.broken_on_model_labels + resting.fixed_on_model_labels).toBeGreaterThan(0);

      // The judge's scores against onnxruntime-node on the same pairs.
      const verdicts = (await storedVerdicts(p)).filter((v) => v.judge.startsWith('cross-encoder|'));
      expect(verdicts.length).toBeGreaterThan(100);
      const texts = await scifactTexts();
      const sample = verdicts.slice(0, 24);
      env.localModelPath = `${DEFAULT_MODELS_DIR}/`;
      env.allowRemoteModels = false;
      const tokenizer = await AutoTokenizer.from_pretrained(TINY_CROSS_ENCODER.id);
      const session = await ort.InferenceSession.create(join(DEFAULT_MODELS_DIR, TINY_CROSS_ENCODER.id, 'onnx', 'model.onnx'));
      let worst = 0;
      for (const v of sample) {
        const inputs = tokenizer([texts.query.get(v.qid)!], {
          text_pair: [texts.passage.get(v.docid)!],
          truncation: true,
          max_length: JUDGE_PRESETS['ms-marco-minilm'].maxLength,
        }) as unknown as Record<string, { data: BigInt64Array; dims: number[] }>;
        const feeds = Object.fromEntries(
          ['input_ids', 'attention_mask', 'token_type_ids'].map((k) => [k, new ort.Tensor('int64', inputs[k]!.data, inputs[k]!.dims)]),
        );
        const logit = ((await session.run(feeds)).logits!.data as Float32Array)[0]!;
        worst = Math.max(worst, Math.abs(logit - v.score));
      }
      console.log(`[e2e] cross-encoder judge: largest |browser − node| over ${sample.length} pairs: ${worst.toExponential(2)}`);
      expect(worst).toBeLessThanOrEqual(1e-4);

      // One model label overruled by hand moves the numbers: a query fixed at k = 10 only because one passage of
      // bm25-rm3's top 10 got a relevant model label, that label set to 0, is fixed no more.
      const perQuery = async (extra: string[]) => {
        const r = await cli([
          'flips',
          join(SCIFACT, 'qrels', 'test.tsv'),
          ...extra,
          '--reference',
          runs['bm25']!,
          '--candidate',
          runs['bm25-rm3']!,
          '--depths',
          '10',
          '--json',
          '--per-query',
        ]);
        const json = JSON.parse(r.stdout) as { per_query: { qid: string; candidates: { states: string[] }[] }[] };
        return new Map(json.per_query.map((q) => [q.qid, q.candidates[0]!.states[0]!]));
      };
      const withModel = await perQuery(['--model-qrels', layer]);
      const without = await perQuery([]);
      const modelGrades = new Map<string, number>();
      for (const line of (await readFile(layer, 'utf8')).trim().split('\n')) {
        const [q, , d, g] = line.split(' ');
        modelGrades.set(`${q} ${d}`, Number(g));
      }
      const top10 = new Map<string, string[]>();
      for (const line of (await readFile(runs['bm25-rm3']!, 'utf8')).trim().split('\n')) {
        const [q, , d] = line.split(/\s+/);
        const list = top10.get(q!) ?? [];
        if (list.length < 10) list.push(d!);
        top10.set(q!, list);
      }
      const target = [...withModel].find(([q, state]) => {
        if (state !== 'fixed' || without.get(q) === 'fixed') return false;
        return (top10.get(q) ?? []).filter((d) => (modelGrades.get(`${q} ${d}`) ?? 0) >= 1).length === 1;
      });
      expect(target).toBeDefined();
      const qid = target![0];
      const doc = top10.get(qid)!.find((d) => (modelGrades.get(`${qid} ${d}`) ?? 0) >= 1)!;
      await p.evaluate((q) => (location.hash = `${location.hash}&q=${encodeURIComponent(q)}`), qid);
      const row = p.locator(`.detail-pane tr[data-doc="${doc}"]`).first();
      await expect.poll(() => row.getByTestId('model-label').count(), { timeout: 30_000 }).toBe(1);
      const at10 = (r: typeof report) => r.depths.find((d) => d.k === 10)!.candidates[0]!;
      await row.getByTestId('judge-0').click();
      await expect
        .poll(async () => at10(JSON.parse(await save(p, () => p.getByTestId('export-report-json').click())) as typeof report).fixed, {
          timeout: 30_000,
        })
        .toBe(resting.fixed - 1);
      expect(await row.locator('.by-you').count()).toBe(1);

      // A reload: the layer comes back from IndexedDB, nothing judged again.
      await p.reload();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('bm25,bm25-rm3');
      await expect
        .poll(() => p.getByTestId('judge-layer-summary').textContent(), { timeout: 60_000 })
        .toMatch(/came from this browser's cache, 0 were judged now/);
      await expect.poll(() => p.getByTestId('holes-model').isChecked(), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => headline(p), { timeout: 30_000 }).toMatch(/model labels/);

      // The LLM judge (UMBRELA): its P(0…3) equal Node's on the same pairs.
      await judgeWith(p, 'qwen2.5-0.5b-umbrela', 12, 8);
      const llm = (await storedVerdicts(p)).filter((v) => v.judge.startsWith('llm|'));
      // 12 holes and the blind sample (8, at least one of each grade people use).
      const labels = Number(
        /^([\d,]+) labels by/.exec((await p.getByTestId('judge-layer-summary').textContent()) ?? '')?.[1]?.replace(',', ''),
      );
      expect(llm.length).toBe(labels);
      expect(labels).toBeGreaterThanOrEqual(12 + 8);
      const node = await loadJudge(
        { ...JUDGE_PRESETS['qwen2.5-0.5b-umbrela'], model: TINY_READER.id },
        { device: 'cpu', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } },
      );
      const again = await node.judge(
        llm.slice(0, 6).map((v) => ({ query: texts.query.get(v.qid)!, passage: texts.passage.get(v.docid)! })),
      );
      await node.dispose();
      let worstP = 0;
      again.forEach((v, i) => v.probabilities!.forEach((x, g) => (worstP = Math.max(worstP, Math.abs(x - llm[i]!.probabilities![g]!)))));
      console.log(`[e2e] LLM judge: largest |browser − node| of P(grade) over 6 pairs: ${worstP.toExponential(2)}`);
      expect(worstP).toBeLessThanOrEqual(1e-4);

      // The prompt, edited, is another judge: its verdicts are new (keyed apart) and its text is in the provenance.
      await p.getByTestId('judge-prompt').locator('summary').click();
      const prompt = p.getByTestId('judge-prompt-text');
      const published = await prompt.inputValue();
      expect(published).toContain('Query: {query}\nPassage: {passage}');
      await prompt.fill(`${published}\nBe strict.`);
      await judgeWith(p, 'qwen2.5-0.5b-umbrela', 4, 2);
      const edited = (await storedVerdicts(p)).filter((v) => v.judge.includes('+edited-'));
      expect(edited.length).toBeGreaterThanOrEqual(4 + 2);
      const sidecar = JSON.parse(await save(p, () => p.getByTestId('export-model-provenance').click())) as {
        prompt: { id: string; template: string };
      };
      expect(sidecar.prompt.id).toMatch(/^umbrela-v1\+edited-[0-9a-f]{8}$/);
      expect(sidecar.prompt.template.endsWith('\nBe strict.')).toBe(true);
    } finally {
      await close();
    }
  }, 400_000);
});
