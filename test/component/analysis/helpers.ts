/** DOM helpers for the analysis view tests: read a rendered table as records of visible text. */
import { LAB_MEASURES, type MetricsRow } from '../../../src/app/types.ts';
import { evaluate, parseMeasures } from '../../../src/core/metrics/index.ts';
import type { Qrels, Run } from '../../../src/core/types.ts';

/** Visible text of an element: screen-reader-only text and partial badges removed, whitespace collapsed. */
export function visibleText(el: Element, options: { keepBadges?: boolean } = {}): string {
  const copy = el.cloneNode(true) as Element;
  copy.querySelectorAll('.sr-only').forEach((e) => e.remove());
  if (!options.keepBadges) copy.querySelectorAll('[data-partial-badge]').forEach((e) => e.remove());
  return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Column headers of a table (visible text of the last header row). */
export function headers(table: HTMLTableElement): string[] {
  const rows = table.tHead?.rows;
  const last = rows?.[rows.length - 1];
  if (!last) throw new Error('table has no header row');
  return [...last.cells].map((c) => visibleText(c));
}

export interface TableRow {
  readonly row: HTMLTableRowElement;
  readonly cells: Record<string, HTMLTableCellElement>;
  readonly text: Record<string, string>;
}

/** Body rows of a table keyed by header text (no row/colspans in the analysis tables' bodies). */
export function readTable(table: HTMLTableElement): TableRow[] {
  const names = headers(table);
  const out: TableRow[] = [];
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      if (row.cells.length !== names.length) throw new Error(`row has ${row.cells.length} cells, header has ${names.length}`);
      const cells: Record<string, HTMLTableCellElement> = {};
      const text: Record<string, string> = {};
      [...row.cells].forEach((cell, i) => {
        cells[names[i]!] = cell;
        text[names[i]!] = visibleText(cell);
      });
      out.push({ row, cells, text });
    }
  }
  return out;
}

/** MetricsRows for runs, computed by the core's trec_eval implementation (keys as LAB_MEASURES names them). */
export function metricsRows(qrels: Qrels, runs: readonly Run[], partial: readonly string[] = []): MetricsRow[] {
  const specs = parseMeasures(['recip_rank_cut.10', 'ndcg_cut.10', 'ncg_cut.100', 'recall.10,100', 'map']);
  return runs.map((run) => {
    const result = evaluate(qrels, run, specs, { version: '10.0' });
    const values: Record<string, number> = {};
    for (const [name, value] of Object.entries(result.aggregate)) values[name.replace(/_(\d+)$/, '.$1')] = value;
    for (const m of LAB_MEASURES) if (!(m.key in values)) throw new Error(`measure ${m.key} missing from evaluate()`);
    return { run: run.name, partial: partial.includes(run.name), values, trecEval: '10.0' };
  });
}
