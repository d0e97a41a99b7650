/**
 * `fliplab answers score` and `fliplab answers flips` end to end on files the test writes: the JSON
 * contracts, the text tables, and the bad input the issue names (malformed JSONL with file:line, predictions
 * for unknown queries warned and counted, flip queries without gold listed and excluded, mismatched flags).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('answers');

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const file = (name: string, text: string) => {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
};
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('fliplab answers score', () => {
  const gold = file(
    'gold.jsonl',
    jsonl([
      { query_id: 'q1', answers: ['Eiffel Tower'] },
      { query_id: 'q2', answers: ['1889', 'eighteen eighty-nine'] },
      { query_id: 'q3', answers: ['Paris'] },
    ]),
  );

  it('prints the contract: per query correct, normalized prediction, matched answer; totals', async () => {
    const predictions = file(
      'pred.jsonl',
      jsonl([
        { query_id: 'q1', prediction: 'The Eiffel Tower.', model: 'kept, ignored' },
        { query_id: 'q2', prediction: 'unknown' },
        { query_id: 'q3', prediction: 'It is in Paris' },
      ]),
    );
    const r = await cli('answers', 'score', '--gold', gold, '--predictions', predictions, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      queries: [
        { query_id: 'q1', correct: true, normalized_prediction: 'eiffel tower', matched_answer: 'Eiffel Tower' },
        { query_id: 'q2', correct: false, normalized_prediction: 'unknown', matched_answer: null },
        { query_id: 'q3', correct: true, normalized_prediction: 'it is in paris', matched_answer: 'Paris' },
      ],
      correct: 2,
      total: 3,
      unknown_queries: [],
    });
    const text = await cli('answers', 'score', '--gold', gold, '--predictions', predictions);
    expect(text.stdout).toMatch(/^q1\tcorrect\teiffel tower\tEiffel Tower$/m);
    expect(text.stdout).toMatch(/correct: 2 of 3 \(66\.7%\)\n$/);
  });

  it('warns about and counts predictions for queries without gold; malformed lines name file and line', async () => {
    const predictions = file(
      'extra.jsonl',
      jsonl([
        { query_id: 'q1', prediction: 'Eiffel Tower' },
        { query_id: 'q9', prediction: 'x' },
      ]),
    );
    const r = await cli('answers', 'score', '--gold', gold, '--predictions', predictions, '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*extra\.jsonl: 1 prediction is for queries without a gold answer \(e\.g\. q9\): not scored/);
    expect(JSON.parse(r.stdout)).toMatchObject({ correct: 1, total: 1, unknown_queries: ['q9'] });

    const bad = file('bad.jsonl', '{"query_id": "q1", "prediction": "a"}\n{"query_id": "q2", prediction: b}\n');
    const broken = await cli('answers', 'score', '--gold', gold, '--predictions', bad);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/bad\.jsonl:2: expected one JSON object per line/);
    const twice = file(
      'twice.jsonl',
      jsonl([
        { query_id: 'q1', prediction: 'a' },
        { query_id: 'q1', prediction: 'b' },
      ]),
    );
    expect((await cli('answers', 'score', '--gold', gold, '--predictions', twice)).stderr).toMatch(
      /twice\.jsonl:2: query "q1" is predicted twice \(first on line 1\)/,
    );
    const noAnswers = file('gold-bad.jsonl', jsonl([{ query_id: 'q1', answers: 'Paris' }]));
    expect((await cli('answers', 'score', '--gold', noAnswers, '--predictions', predictions)).stderr).toMatch(
      /gold-bad\.jsonl:1: expected "answers" as a list of strings/,
    );
  });

  it('takes gold answers from a BEIR queries.jsonl (metadata.answer, as HotpotQA carries them)', async () => {
    const queries = file(
      'queries.jsonl',
      jsonl([
        { _id: 'q1', text: 'Which tower?', metadata: { answer: 'Eiffel Tower' } },
        { _id: 'q2', text: 'When?', metadata: {} },
      ]),
    );
    const predictions = file('p2.jsonl', jsonl([{ query_id: 'q1', prediction: 'eiffel tower' }]));
    const r = await cli('answers', 'score', '--gold', queries, '--predictions', predictions, '--json');
    expect(r.stderr).toMatch(/1 query carries no answer in metadata/);
    expect(JSON.parse(r.stdout)).toMatchObject({ correct: 1, total: 1 });
  });
});

describe('fliplab answers flips', () => {
  // Six judged queries; BM25 supports q1..q5 at k = 2; the candidate breaks q1, q2, q3 and keeps q4, q5.
  const qrels = file('qrels.txt', ['q1 0 d1 1', 'q2 0 d2 1', 'q3 0 d3 1', 'q4 0 d4 1', 'q5 0 d5 1', 'q6 0 d6 1'].join('\n') + '\n');
  const run = (name: string, lists: Record<string, string[]>) =>
    file(
      name,
      Object.entries(lists)
        .flatMap(([q, docs]) => docs.map((d, i) => `${q} Q0 ${d} ${i + 1} ${10 - i} ${name}`))
        .join('\n') + '\n',
    );
  const bm25 = run('bm25.run', { q1: ['d1', 'x'], q2: ['d2'], q3: ['d3'], q4: ['d4'], q5: ['x', 'd5'], q6: ['x', 'y', 'd6'] });
  const dense = run('dense.run', { q1: ['x', 'y', 'd1'], q2: ['y'], q3: ['z'], q4: ['d4'], q5: ['d5'], q6: ['d6'] });
  const gold = file('g.jsonl', jsonl(['q1', 'q2', 'q4', 'q5', 'q6'].map((q) => ({ query_id: q, answers: [`answer ${q}`] }))));
  const refAnswers = file('ref.jsonl', jsonl(['q1', 'q2', 'q4', 'q5'].map((q) => ({ query_id: q, prediction: `answer ${q}` }))));
  const candAnswers = file(
    'cand.jsonl',
    jsonl([
      { query_id: 'q1', prediction: 'unknown' },
      { query_id: 'q2', prediction: 'answer q2' },
      { query_id: 'q4', prediction: 'answer q4' },
      { query_id: 'q5', prediction: 'something else' },
    ]),
  );
  const base = [qrels, '--reference', bm25, '--candidate', dense, '--name', 'bm25', '--name', 'dense', '--gold', gold, '--at', '2'];

  it('without answers: the flip set and its control sample (what to run a reader on); q3 has no gold and is listed', async () => {
    const r = await cli('answers', 'flips', ...base, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { candidates: { flip_queries: string[]; control_queries: string[]; missing_gold: string[] }[] };
    expect(out).toMatchObject({ k: 2, seed: 1, prng: 'mulberry32', reference: 'bm25', reference_supported: 5, queries: 6 });
    expect(out.candidates[0]).toMatchObject({ name: 'dense', flip_queries: ['q1', 'q2'], missing_gold: ['q3'] });
    expect(new Set(out.candidates[0]!.control_queries)).toEqual(new Set(['q4', 'q5']));
    expect(r.stderr).toMatch(/dense: 1 negative flip\(s\) have no gold answer and are left out \(e\.g\. q3\)/);
  });

  it('with answers: Table 9, as JSON (the same as the core computes) and as text', async () => {
    const withAnswers = [...base, '--reference-answers', refAnswers, '--candidate-answers', candAnswers];
    const r = await cli('answers', 'flips', ...withAnswers, '--json');
    expect(r.code).toBe(0);
    const c = (JSON.parse(r.stdout) as { candidates: Record<string, unknown>[] }).candidates[0]!;
    expect(c).toMatchObject({
      flips: 2,
      control: 2,
      control_short: false,
      regressions_among_flips: { count: 1, of: 2, rate: 0.5 },
      regressions_in_control: { count: 1, of: 2, rate: 0.5 },
      flips_incorrect_from_reference: { count: 0, of: 2 },
      became_incorrect: { count: 1, of: 2 },
      share_of_reference_supported: { count: 1, of: 5, rate: 0.2 },
    });
    expect(typeof (c.regressions_among_flips as { ci_low: number }).ci_low).toBe('number');
    const text = await cli('answers', 'flips', ...withAnswers);
    expect(text.stdout).toMatch(/answer regressions among flips\s+1\/2 \(50\.0%, \d+\.\d–\d+\.\d\)/);
    expect(text.stdout).toMatch(/left out, no gold answer: 1 \(q3\)/);
  });

  it('a gold answer that normalizes to nothing counts as no gold: the query is left out and listed', async () => {
    const emptyGold = file(
      'g-empty.jsonl',
      jsonl([
        { query_id: 'q1', answers: ['The', ''] },
        { query_id: 'q2', answers: [] },
        { query_id: 'q4', answers: ['a'] },
      ]),
    );
    const r = await cli('answers', 'flips', qrels, '--reference', bm25, '--candidate', dense, '--gold', emptyGold, '--at', '2', '--json');
    const c = (JSON.parse(r.stdout) as { candidates: { flip_queries: string[]; missing_gold: string[] }[] }).candidates[0]!;
    expect(c.flip_queries).toEqual([]);
    expect(c.missing_gold).toEqual(['q1', 'q2', 'q3']);
    expect(r.stderr).toMatch(/g-empty\.jsonl:2: query "q2" has no gold answer/);
  });

  it('refuses answers for some candidates only', async () => {
    const r = await cli('answers', 'flips', ...base, '--reference-answers', refAnswers);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs --reference-answers and one --candidate-answers per --candidate \(1\), got a reference file and 0/);
  });
});
