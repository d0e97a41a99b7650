/** Runs derived from a real one for the e2e tests (the same text in, the same run out). */

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
