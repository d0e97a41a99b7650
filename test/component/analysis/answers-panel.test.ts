/**
 * The answers panel with the real `AnswerLab` on a fake lab: where answer-level flips cannot apply it says why
 * and what would make them apply (and hides what cannot help there); a loaded gold file and imported
 * predictions are kept per collection, come back when the collection opens again, and can be removed.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, test } from 'vitest';
import AnswersPanel from '../../../src/app/views/analysis/AnswersPanel.svelte';
import { EncodeBridge } from '../../../src/app/bridge/encode-bridge.ts';
import { AnswerLab } from '../../../src/app/state/answers.svelte.ts';
import { prepareFlips } from '../../../src/core/flips/analyze.ts';
import { summary } from '../shell/fakes.svelte.ts';
import { asLab, FakeAnswerLabHost, MemoryInputs } from './answer-fakes.svelte.ts';
import { BGE_RANKS, makeQrels, makeRun, REFERENCE_RANKS, type Ranks } from './fixtures.ts';

const K = 10;
const prepared = () =>
  prepareFlips(makeQrels(REFERENCE_RANKS.length), makeRun('BM25', REFERENCE_RANKS), [makeRun('BGE', BGE_RANKS)], { maxDepth: 50 });
const ids = REFERENCE_RANKS.map((_, i) => `q${i + 1}`);
const within = (ranks: Ranks, i: number) => ranks[i] !== null && ranks[i]! <= K;
/** Negative flips at K by the paper's definition, from the fixture's ranks (not from the core). */
const FLIPS = ids.filter((_, i) => within(REFERENCE_RANKS, i) && !within(BGE_RANKS, i));

let labs: AnswerLab[] = [];
afterEach(() => {
  for (const a of labs) a.dispose();
  labs = [];
});

function setup(patch: (lab: FakeAnswerLabHost) => void = () => {}, inputs = new MemoryInputs()) {
  const lab = new FakeAnswerLabHost();
  patch(lab);
  // A bridge whose worker never starts: these tests run no reader.
  const bridge = new EncodeBridge({
    createWorker: () => {
      throw new Error('no worker in these tests');
    },
  });
  const answers = new AnswerLab(asLab(lab), { bridge, inputs: inputs.access });
  labs.push(answers);
  const r = render(AnswersPanel, { lab: asLab(lab), answers });
  return { ...r, lab, answers, inputs };
}

const why = () => screen.queryByTestId('answers-why');
const file = (path: string) => ({ path, bytes: new TextEncoder().encode('{}\n') });

describe('AnswersPanel where answer-level flips cannot apply', () => {
  test('no collection: the section is there (the rail link has a target), says what it needs, and offers nothing to fill in', () => {
    setup();
    expect(screen.getByRole('heading', { name: 'Answer-level flips' })).toBeTruthy();
    expect(why()?.dataset.kind).toBe('no-collection');
    expect(why()?.textContent).toMatch(/No collection is open.*relevance judgments \(qrels\).*candidate.*gold answers/s);
    for (const id of ['gold-file', 'answer-k', 'reader-run', 'answer-runs', 'answer-flip-table'])
      expect(screen.queryByTestId(id), id).toBeNull();
  });

  test('a collection without judgments: no flip can exist, so it says so and points at qrels', () => {
    setup((lab) => {
      lab.collection = summary({ judged: false, evaluated: 0 });
      lab.collectionId = 'files:unjudged';
    });
    expect(why()?.dataset.kind).toBe('unjudged');
    expect(why()?.textContent).toMatch(/no relevance judgments \(qrels\), so no query can be a negative flip.*qrels file/s);
    expect(screen.queryByTestId('gold-file')).toBeNull();
    expect(screen.queryByTestId('answer-flip-table')).toBeNull();
  });

  test('judged but no candidate analysed yet: asks for a candidate; gold can already be loaded; no reader, no tables', () => {
    setup((lab) => {
      lab.collection = summary();
      lab.collectionId = 'files:qa';
    });
    expect(why()?.dataset.kind).toBe('no-pair');
    expect(why()?.textContent).toMatch(/add a candidate retriever/);
    expect(screen.getByTestId('gold-file')).toBeTruthy();
    expect(screen.queryByTestId('reader-run')).toBeNull();
    expect(screen.queryByTestId('answer-flip-table')).toBeNull();
  });

  test('no gold answers: says the queries carry none and how to load a gold file; a gold file brings the tables', async () => {
    const { lab, answers, inputs } = setup((l) => {
      l.collection = summary();
      l.collectionId = 'files:qa';
      l.prepared = prepared();
    });
    await answers.loadCollectionGold();
    await waitFor(() => expect(why()?.dataset.kind).toBe('no-gold'));
    expect(why()?.textContent).toMatch(/No gold answers: this collection's queries carry none.*Load a gold answers file/s);
    expect(screen.queryByTestId('answer-flip-table')).toBeNull();

    lab.lab.parseGoldFile.mockResolvedValue({ gold: Object.fromEntries(ids.map((q) => [q, [`answer ${q}`]])), warnings: [] });
    await answers.importGold(file('gold.jsonl'));
    await waitFor(() => expect(why()).toBeNull());
    const row = screen.getByTestId('answer-flip-table').querySelector('tr[data-candidate="BGE"] [data-testid="flip-set"]');
    expect(FLIPS.length).toBeGreaterThan(0);
    expect(row?.textContent).toMatch(new RegExp(`^\\s*${FLIPS.length} flips, ${FLIPS.length} controls`));
    // Kept for this collection.
    expect(inputs.gold.get('files:qa')?.source).toBe('gold.jsonl');
    expect(screen.getByTestId('gold-status').textContent).toMatch(
      /16 queries \(from gold\.jsonl, kept in this browser for this collection\)/,
    );
  });

  test('k beyond the analysed depths: says so, and k stays editable', async () => {
    const { answers } = setup((l) => {
      l.collection = summary();
      l.collectionId = 'files:qa';
      l.prepared = prepared();
      l.lab.goldAnswers.mockResolvedValue({ q1: ['red'] });
    });
    await answers.loadCollectionGold();
    await waitFor(() => expect(why()).toBeNull());
    await fireEvent.input(screen.getByTestId('answer-k'), { target: { value: '60' } });
    await waitFor(() => expect(why()?.dataset.kind).toBe('depth'));
    expect(why()?.textContent).toMatch(/k = 60 is beyond the analysed depths \(at most 50\)/);
    expect(screen.queryByTestId('answer-flip-table')).toBeNull();
  });
});

describe('AnswersPanel: gold files and imported predictions kept per collection', () => {
  const gold = Object.fromEntries(ids.map((q) => [q, [`gold ${q}`]]));
  const host = (l: FakeAnswerLabHost) => {
    l.collection = summary();
    l.collectionId = 'files:qa';
    l.prepared = prepared();
    l.lab.goldAnswers.mockResolvedValue({ q1: ['metadata answer'] });
  };

  test('come back when the collection opens again (a new lab, as after a reload), at their k; then each can be removed', async () => {
    const inputs = new MemoryInputs();
    await inputs.putGold({ collectionId: 'files:qa', source: 'my-gold.jsonl', gold, savedAt: 1 });
    await inputs.putPredictions({
      collectionId: 'files:qa',
      run: 'BGE',
      k: 5,
      source: 'bge.jsonl',
      predictions: { q3: 'x', q8: 'y' },
      savedAt: 2,
    });
    // Another collection's inputs never show here (run names repeat across collections).
    await inputs.putPredictions({
      collectionId: 'files:other',
      run: 'BM25',
      k: 5,
      source: 'o.jsonl',
      predictions: { q1: 'z' },
      savedAt: 3,
    });
    const { answers } = setup(host, inputs);
    await answers.loadCollectionGold();
    await waitFor(() => expect(screen.getByTestId('gold-status').textContent).toMatch(/16 queries \(from my-gold\.jsonl, kept/));
    expect(answers.k).toBe(5);
    const count = (run: string) =>
      screen.getByTestId('answer-runs').querySelector(`tr[data-run="${run}"] [data-testid="answer-count"]`)?.textContent;
    expect(count('BGE')).toMatch(/^\s*2 \(bge\.jsonl\)/);
    expect(count('BM25')).toMatch(/^\s*0\s*$/);
    expect(screen.getAllByTestId('predictions-remove')).toHaveLength(1);

    // Opening the same collection again in this page restores nothing twice (a reader's answers are not replaced).
    await answers.loadCollectionGold();
    expect(Object.keys(answers.answers)).toEqual(['BGE']);

    await fireEvent.click(screen.getByTestId('predictions-remove'));
    await waitFor(() => expect(count('BGE')).toMatch(/^\s*0\s*$/));
    expect(await inputs.predictionsOf('files:qa')).toEqual([]);
    expect(await inputs.predictionsOf('files:other')).toHaveLength(1);

    // Removing the gold file falls back to the collection's own gold.
    await fireEvent.click(screen.getByTestId('gold-remove'));
    await waitFor(() => expect(screen.getByTestId('gold-status').textContent).toMatch(/\b1 query \(from queries metadata\)/));
    expect(screen.queryByTestId('gold-remove')).toBeNull();
    expect(inputs.gold.has('files:qa')).toBe(false);
  });

  test('imported predictions are kept with their run, k and file; a failed save is said, not silent', async () => {
    const { lab, answers, inputs } = setup(host);
    await answers.loadCollectionGold();
    await waitFor(() => expect(screen.queryByTestId('answer-runs')).not.toBeNull());
    lab.lab.parsePredictionsFile.mockResolvedValue({ q3: 'gold q3', q8: 'nope' });
    await answers.importPredictions('BGE', file('preds.jsonl'));
    const [kept] = await inputs.predictionsOf('files:qa');
    expect(kept).toMatchObject({
      collectionId: 'files:qa',
      run: 'BGE',
      k: K,
      source: 'preds.jsonl',
      predictions: { q3: 'gold q3', q8: 'nope' },
    });

    inputs.putPredictions = () => Promise.reject(new DOMException('quota', 'QuotaExceededError'));
    await answers.importPredictions('BM25', file('ref.jsonl'));
    expect(answers.predictionsOf('BM25')).toEqual({ q3: 'gold q3', q8: 'nope' });
    await waitFor(() => expect(screen.getByText(/ref\.jsonl could not be kept in this browser.*used until the page reloads/)).toBeTruthy());
  });
});
