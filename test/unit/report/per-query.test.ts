import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { analyzeFlips } from '../../../src/core/flips/index.ts';
import { perQueryCsv, perQueryJson } from '../../../src/report/per-query.ts';
import { syntheticCase } from './fixtures.ts';

const parse = (csv: string) => Papa.parse<string[]>(csv, { skipEmptyLines: true });

describe('per-query CSV', () => {
  const names = ['plain', 'comma, "quoted"\nand a newline'];
  const c = syntheticCase(11, names);
  const depths = [1, 5, 10];
  const report = analyzeFlips(c.qrels, c.reference, c.candidates, { depths, perQuery: true });
  const csv = perQueryCsv(report);

  it('parses back (papaparse) into the report states, one row per query × candidate', () => {
    const { data, errors } = parse(csv);
    expect(errors).toEqual([]);
    const [header, ...rows] = data;
    expect(header).toEqual([
      'qid',
      'reference',
      'candidate',
      'reference_rank',
      'candidate_rank',
      'state@1',
      'state@5',
      'state@10',
      'reference_unjudged@1',
      'reference_unjudged@5',
      'reference_unjudged@10',
      'candidate_unjudged@1',
      'candidate_unjudged@5',
      'candidate_unjudged@10',
    ]);
    expect(rows.length).toBe(report.per_query!.length * names.length);
    let i = 0;
    for (const q of report.per_query!) {
      for (const cand of q.candidates) {
        const row = rows[i++]!;
        expect(row[0]).toBe(q.qid);
        expect(row[1]).toBe('reference');
        expect(row[2]).toBe(cand.name);
        expect(row[3]).toBe(q.reference_rank === null ? '' : String(q.reference_rank));
        expect(row[4]).toBe(cand.rank === null ? '' : String(cand.rank));
        expect(row.slice(5, 5 + cand.states.length)).toEqual(cand.states);
        expect(row.slice(5 + cand.states.length).map(Number)).toEqual([...q.reference_unjudged, ...cand.unjudged]);
      }
    }
  });

  it('agrees with the aggregate counts (states are the transitions the tables count)', () => {
    const rows = parse(csv).data.slice(1);
    for (const [d, k] of depths.entries()) {
      for (const cand of report.depths[d]!.candidates) {
        const states = rows.filter((r) => r[2] === cand.name).map((r) => r[5 + d]);
        expect(states.filter((s) => s === 'broken').length, `k=${k}`).toBe(cand.broken);
        expect(states.filter((s) => s === 'fixed').length).toBe(cand.fixed);
        expect(states.filter((s) => s === 'preserved').length).toBe(cand.preserved);
      }
    }
  });

  it('quotes per RFC 4180 and ends records with CRLF', () => {
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv).toContain('"comma, ""quoted""\nand a newline"');
    expect(csv.split('\r\n')[1]).toMatch(/^q0,reference,plain,/);
  });

  it('JSON export carries the same rows and the depth order', () => {
    const obj = JSON.parse(perQueryJson(report));
    expect(obj.depth_list).toEqual(depths);
    expect(obj.reference).toBe('reference');
    expect(obj.candidates).toEqual(names);
    expect(obj.per_query).toEqual(report.per_query);
  });

  it('refuses a report built without per-query states, saying how to get them', () => {
    const bare = analyzeFlips(c.qrels, c.reference, c.candidates, { depths });
    expect(() => perQueryCsv(bare)).toThrow(/no per-query states; build it with perQuery: true/);
    expect(() => perQueryJson(bare)).toThrow(/per-query JSON/);
  });
});
