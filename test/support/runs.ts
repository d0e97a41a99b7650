/** Runs derived from a real one for the e2e tests (the same text in, the same run out), and the files they start from. */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SHARED_DATA } from '../shared-data.ts';

/**
 * A runs-only collection in `dir`: TREC-COVID's qrels (qrels.test.txt), Anserini's BM25 run
 * (run.bm25-flat.txt) and a second run `derive`d from the BM25 run's text, written as `other`.
 */
export async function covidRuns(
  dir: string,
  other: string,
  derive: (bm25: string) => string,
): Promise<{ qrels: string; bm25: string; other: string }> {
  const covid = join(SHARED_DATA, 'trec-covid-bm25');
  const files = { qrels: join(dir, 'qrels.test.txt'), bm25: join(dir, 'run.bm25-flat.txt'), other: join(dir, other) };
  const bm25 = readFileSync(join(covid, 'run.bm25-flat.txt'), 'utf8');
  await writeFile(files.qrels, readFileSync(join(covid, 'qrels.test.txt')));
  await writeFile(files.bm25, bm25);
  await writeFile(files.other, derive(bm25));
  return files;
}

/** A TREC run's documents per query, in file order. */
export function docsByQuery(text: string): Map<string, string[]> {
  const byQuery = new Map<string, string[]>();
  for (const line of text.trim().split('\n')) {
    const [q, , d] = line.split(/\s+/);
    if (!byQuery.has(q!)) byQuery.set(q!, []);
    byQuery.get(q!)!.push(d!);
  }
  return byQuery;
}

/** The run with, in every third query, ten passages no one judged put on top (the rest moves down), tagged `holey`. */
export function holeyRun(text: string): string {
  const byQuery = docsByQuery(text);
  const out: string[] = [];
  for (const [q, docs] of byQuery) {
    const order = Number(q) % 3 === 0 ? [...Array.from({ length: 10 }, (_, i) => `new-${q}-${i}`), ...docs] : docs;
    order.slice(0, 1000).forEach((d, i) => out.push(`${q} Q0 ${d} ${i + 1} ${(1000 - i / 10).toFixed(3)} holey`));
  }
  return `${out.join('\n')}\n`;
}
