/**
 * trec_eval's text output, byte for byte (meas_print_single.c, meas_print_final.c): one line per value,
 * `%-22s\t%s\t%6.4f` (counts `%ld`, relstring `'%s'`, runid `%s`), per-query blocks first (with -q) in
 * evaluation order, then the `all` summary; measures in trec_eval table order. Also a JSON-friendly
 * plain-object form.
 */
import type { EvalPlan, EvalResult } from './evaluate.ts';
import { formatLong, formatValue } from './printf.ts';

export interface FormatOptions {
  /** `-q`: print every evaluated query before the summary. */
  readonly perQuery: boolean;
  /** Run tag for the runid line; defaults to the result's runid. */
  readonly runid?: string;
}

const line = (name: string, qid: string, value: string): string => `${name.padEnd(22)}\t${qid}\t${value}\n`;

export function formatTrecEval(result: EvalResult, opts: FormatOptions): string {
  const out: string[] = [];
  if (opts.perQuery) {
    const cols = result.columns.filter((c) => c.perQuery);
    const width = result.valueNames.length;
    const slot = new Map(result.valueNames.map((n, j) => [n, j]));
    result.queries.forEach((qid, qi) => {
      const texts = result.perQueryText.get(qid);
      for (const c of cols) {
        if (c.format === 'text') {
          out.push(line(c.name, qid, `'${texts?.[c.name] ?? ''}'`));
          continue;
        }
        const v = result.values[qi * width + slot.get(c.name)!]!;
        out.push(line(c.name, qid, c.format === 'long' ? formatLong(v) : formatValue(v)));
      }
    });
  }
  for (const c of result.columns) {
    if (!c.summary) continue;
    if (c.format === 'runid') out.push(line(c.name, 'all', opts.runid ?? result.runid));
    else {
      const v = result.aggregate[c.name]!;
      out.push(line(c.name, 'all', c.format === 'long' ? formatLong(v) : formatValue(v)));
    }
  }
  return out.join('');
}

/**
 * One query's `-q` block from a plan row (`plan.slots` values, as EvalPlan.compute writes it): the same
 * bytes formatTrecEval prints for that query, for output that streams query by query.
 */
export function queryBlockPrinter(
  plan: EvalPlan,
): (qid: string, row: Float64Array, texts: Readonly<Record<string, string>> | undefined) => string {
  const slot = new Map(plan.valueNames.map((n, j) => [n, plan.slotOf[j]!]));
  const cols = plan.columns.filter((c) => c.perQuery).map((c) => ({ ...c, slot: slot.get(c.name) ?? -1, head: c.name.padEnd(22) }));
  return (qid, row, texts) => {
    let out = '';
    for (const c of cols) {
      const v =
        c.format === 'text' ? `'${texts?.[c.name] ?? ''}'` : c.format === 'long' ? formatLong(row[c.slot]!) : formatValue(row[c.slot]!);
      out += `${c.head}\t${qid}\t${v}\n`;
    }
    return out;
  };
}
