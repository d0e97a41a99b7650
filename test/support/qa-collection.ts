/**
 * A small BEIR-format QA collection the tests write: questions whose gold answers sit in queries.jsonl's
 * `metadata.answer` (as in BEIR HotpotQA), one relevant passage each, and distractors of varied length
 * that share the question's words, so BM25 at different k1/b (the lab's variant) or with RM3 reorders them
 * and some queries flip at small depths.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../src/core/random.ts';

const SUBJECTS = [
  'river',
  'ocean',
  'moon',
  'tide',
  'brain',
  'heart',
  'virus',
  'vaccine',
  'protein',
  'gene',
  'market',
  'company',
  'school',
  'city',
  'country',
  'house',
  'light',
  'water',
  'energy',
  'power',
  'student',
  'teacher',
  'patient',
  'hospital',
  'drug',
  'tumor',
  'mouse',
  'blood',
  'cell',
  'food',
];
const PROPERTIES = ['color', 'name', 'origin', 'cause', 'size', 'age'];
const ANSWERS = ['red', 'green', 'blue', 'black', 'white', 'high', 'low', 'old', 'new', 'large', 'small', 'early', 'late'];
const FILLER = 'the of and to in is was for on that with as by at from it be are this an or which were has have had'.split(' ');

/** Deterministic integers in [0, n) from the project's one PRNG. */
function rng(seed: number): (n: number) => number {
  const next = mulberry32(seed);
  return (n) => Math.floor(next() * n);
}

export interface QaCollection {
  readonly dir: string;
  readonly queryIds: readonly string[];
  readonly answers: ReadonlyMap<string, string>;
}

export function writeQaCollection(dir: string, opts: { queries?: number; seed?: number } = {}): QaCollection {
  const n = opts.queries ?? 30;
  const pick = rng(opts.seed ?? 7);
  const docs: { _id: string; title: string; text: string }[] = [];
  const queries: { _id: string; text: string; metadata: { answer: string } }[] = [];
  const qrels: string[] = ['query-id\tcorpus-id\tscore'];
  const answers = new Map<string, string>();
  const words = (count: number) => Array.from({ length: count }, () => FILLER[pick(FILLER.length)]).join(' ');
  for (let q = 0; q < n; q++) {
    const subject = SUBJECTS[q % SUBJECTS.length]!;
    const property = PROPERTIES[pick(PROPERTIES.length)]!;
    const answer = ANSWERS[pick(ANSWERS.length)]!;
    const id = `q${q + 1}`;
    answers.set(id, answer);
    queries.push({ _id: id, text: `what is the ${property} of the ${subject}`, metadata: { answer } });
    // The relevant passage: long, the subject once, the property once, the answer.
    const rel = `d${q + 1}-rel`;
    docs.push({
      _id: rel,
      title: '',
      text: `${words(20 + pick(30))} the ${property} of this ${subject} is ${answer}. ${pick(2) === 0 ? subject : ''} ${words(10 + pick(40))}`,
    });
    qrels.push(`${id}\t${rel}\t1`);
    // Distractors: short ones repeating the subject, long ones with subject and property, none with the answer.
    for (let d = 0; d < 4; d++) {
      const reps = 1 + pick(3);
      const text =
        d % 2 === 0
          ? `${Array.from({ length: reps }, () => subject).join(' ')} ${words(3 + pick(8))}`
          : `${words(10 + pick(40))} ${subject} ${property} ${words(10 + pick(40))} ${subject}`;
      docs.push({ _id: `d${q + 1}-x${d}`, title: '', text });
    }
  }
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(join(dir, 'corpus.jsonl'), jsonl(docs));
  writeFileSync(join(dir, 'queries.jsonl'), jsonl(queries));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), `${qrels.join('\n')}\n`);
  return { dir, queryIds: queries.map((q) => q._id), answers };
}
