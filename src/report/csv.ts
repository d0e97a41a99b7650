/** RFC 4180 CSV: fields quoted when they hold a comma, a double quote, CR or LF; CRLF line ends. */

export type CsvCell = string | number | null;

/** One field: null → empty; a quote is doubled inside a quoted field. */
export function csvField(value: CsvCell): string {
  if (value === null) return '';
  const s = typeof value === 'number' ? String(value) : value;
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
