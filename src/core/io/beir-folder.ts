/**
 * A collection written out as a BEIR folder that opens anywhere (BEIR's loader, ir_datasets, Pyserini, fliplab):
 * `corpus.jsonl` ({_id, title, text}), `queries.jsonl` ({_id, text}, or the file the collection came with, kept
 * byte for byte with its metadata), `qrels/<split>.tsv` (BEIR's header, then `query-id corpus-id score`), and any
 * further files (runs, a model layer, a README); lab/data/beir-zip.ts zips them under one folder.
 */
import type { Corpus, Qrels, Queries } from '../types.ts';

/** A run's (or collection's) name as a file name: anything but letters, digits, `._=-` becomes `_`. */
export const runFileName = (name: string): string => name.replace(/[^A-Za-z0-9._=-]+/g, '_') || 'run';

/**
 * File names for runs, by run name: `runFileName` of each, made unique without regard to case (a second "a b" next
 * to "a_b" becomes "a_b-2") and never "." or "..", so no two runs share a file in the folder on any disk.
 */
export function runFileNames(names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    if (out.has(name)) continue;
    const base = /^\.+$/.test(runFileName(name)) ? `_${runFileName(name)}` : runFileName(name);
    let file = base;
    for (let i = 2; used.has(file.toLowerCase()); i++) file = `${base}-${i}`;
    used.add(file.toLowerCase());
    out.set(name, file);
  }
  return out;
}

/** BEIR's qrels TSV: the header line, then one `query-id<TAB>corpus-id<TAB>score` line a pair, queries in their order. */
export function beirQrelsTsv(qrels: Qrels): string {
  const lines = ['query-id\tcorpus-id\tscore'];
  for (const [qid, docs] of qrels.byQuery) for (const [docid, grade] of docs) lines.push(`${qid}\t${docid}\t${grade}`);
  return `${lines.join('\n')}\n`;
}

/** The corpus as BEIR JSONL. */
export function beirCorpusJsonl(corpus: Corpus): string {
  return (
    corpus.ids.map((id, i) => JSON.stringify({ _id: id, title: corpus.titles[i] ?? '', text: corpus.texts[i] ?? '' })).join('\n') + '\n'
  );
}

/** The queries as BEIR JSONL. */
export function beirQueriesJsonl(queries: Queries): string {
  return queries.ids.map((id, i) => JSON.stringify({ _id: id, text: queries.texts[i] ?? '' })).join('\n') + '\n';
}

export interface FolderReadmeInput {
  readonly collection: string;
  readonly split: string;
  /** The analysis's reference and candidates, as run names (their files are `runs/<runFileName>.run`). */
  readonly reference: string | null;
  readonly candidates: readonly string[];
  readonly depths: readonly number[];
  readonly level: number;
  readonly label: string;
  /** The analysis ranks judged passages only (trec_eval -J). */
  readonly judgedOnly: boolean;
  /** One cohort at every depth: the queries the reference supports at this k (null: each depth its own). */
  readonly cohortAt: number | null;
  /** Whether the folder has people's judgments (qrels/<split>.tsv). */
  readonly judged: boolean;
  /** A model layer rides along as model.qrels: the command layers it under people's judgments. */
  readonly modelLayer: boolean;
  /** What the queries are, when they were made (synthetic.ts provenanceSentence). */
  readonly queriesNote?: string;
}

/** The folder's README: what is in it, and the command that reproduces the lab's analysis. */
export function beirFolderReadme(r: FolderReadmeInput): string {
  const files = runFileNames(r.reference === null ? r.candidates : [r.reference, ...r.candidates]);
  const run = (name: string) => `runs/${files.get(name)!}.run`;
  const split = runFileName(r.split);
  const command =
    r.reference === null || r.candidates.length === 0 || !r.judged
      ? null
      : [
          `npx fliplab flips qrels/${split}.tsv`,
          ...(r.modelLayer ? ['--model-qrels model.qrels'] : []),
          `--reference ${run(r.reference)}`,
          ...r.candidates.map((c) => `--candidate ${run(c)}`),
          `--depths ${r.depths.join(',')}`,
          `--label ${r.label}`,
          `-l ${r.level}`,
          ...(r.judgedOnly ? ['--judged-only'] : []),
          ...(r.cohortAt === null ? [] : [`--cohort-at ${r.cohortAt}`]),
        ].join(' ');
  return [
    `# ${r.collection}, as a BEIR folder`,
    '',
    'Written by fliplab. It opens in any BEIR loader, in Pyserini and in fliplab (pick the folder, or `fliplab demo <folder>`).',
    '',
    '- `corpus.jsonl`, `queries.jsonl`: the passages and queries (BEIR JSONL).',
    ...(r.judged
      ? [
          `- \`qrels/${split}.tsv\`: people's judgments` +
            `${r.queriesNote === undefined ? '' : " (for made queries: each written query's source passage)"}.`,
        ]
      : []),
    ...(r.modelLayer
      ? ["- `model.qrels`, `model.qrels.json`: the model's labels for the unjudged pairs (TREC qrels) and their provenance."]
      : []),
    '- `runs/`: the runs of the analysis (TREC format).',
    ...(r.queriesNote === undefined ? [] : ['- `synthetic-queries.json`: how the queries were made.', '', r.queriesNote]),
    ...(command === null ? [] : ['', "The lab's analysis, from this folder:", '', '```sh', command, '```']),
    '',
  ].join('\n');
}
