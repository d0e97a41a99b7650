/**
 * RFC 4180 CSV: fields quoted when they hold a comma, a double quote, CR or LF; CRLF line ends.
 *
 * Two rules on top, for the spreadsheet a CSV is opened in:
 * - A text cell that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
 *   carriage return, and is not a number) gets a leading `'` (OWASP's CSV-injection rule), so a query id
 *   `=1+1` or a run tag `+tag` stays text. A text cell that is a plain number (`-2`) is left alone: a
 *   spreadsheet reads it as that number, which runs nothing.
 * - Numbers print in the shortest decimal of at most 15 significant digits that reads back as the value
 *   meant: 1 − 0.9 prints `0.1`, not `0.09999999999999998` (15 digits are what a double holds of any
 *   decimal). Integers print whole.
 */

export type CsvCell = string | number | null;

/** A cell a spreadsheet would evaluate: starts with a formula trigger. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number as text ("-2", "+1.5", "-1e-3"): safe as it is. */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A number in the shortest form of at most 15 significant digits; non-finite values are refused. */
export function csvNumber(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`csv: ${x} is not a number a CSV cell can hold`);
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(15)));
}

/** A text cell, with a leading `'` where a spreadsheet would otherwise run it as a formula. */
export function csvText(s: string): string {
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/** One field: null → empty; a quote is doubled inside a quoted field. */
export function csvField(value: CsvCell): string {
  if (value === null) return '';
  const s = typeof value === 'number' ? csvNumber(value) : csvText(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Header plus rows, every record (the last included) ended by CRLF as RFC 4180 §2 allows. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  const out = [header.map(csvField).join(',')];
  for (const row of rows) {
    if (row.length !== header.length) throw new RangeError(`csv: a row has ${row.length} fields, the header ${header.length}`);
    out.push(row.map(csvField).join(','));
  }
  return `${out.join('\r\n')}\r\n`;
}
