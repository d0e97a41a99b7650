import { describe, expect, it } from 'vitest';
import { compareUtf8, trecEvalOrder } from '../../../src/core/metrics/index.ts';
import { qrels, run, values } from './helpers.ts';

describe('trec_eval ranking order', () => {
  it('ignores the rank column: documents are re-sorted by score descending', () => {
    // The run lists b first (rank 1) but a has the higher score, so trec_eval ranks a first.
    const r = run({
      q1: [
        ['b', 1],
        ['a', 2],
      ],
    });
    const q = qrels({ q1: { b: 1 } });
    expect(values(q, r, ['recip_rank'], {}, 'q1').recip_rank).toBe(1 / 2);
  });

  it('breaks score ties by docid descending (strcmp(b, a))', () => {
    // a, b, c all score 1: trec_eval order is c, b, a, so the only relevant doc a is at rank 3.
    const r = run({
      q1: [
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ],
    });
    expect(values(qrels({ q1: { a: 1 } }), r, ['recip_rank'], {}, 'q1').recip_rank).toBe(1 / 3);
    expect(values(qrels({ q1: { c: 1 } }), r, ['recip_rank'], {}, 'q1').recip_rank).toBe(1);
  });

  it('compares docids as bytes: "B" (0x42) sorts before "a" (0x61), so descending puts a first', () => {
    const r = run({
      q1: [
        ['B', 7],
        ['a', 7],
      ],
    });
    expect(values(qrels({ q1: { a: 1 } }), r, ['recip_rank'], {}, 'q1').recip_rank).toBe(1);
  });

  it('compareUtf8 is UTF-8 byte order (= code point order), not UTF-16 code-unit order', () => {
    const bmpHigh = '\uFFFD'; // U+FFFD, UTF-16 unit 0xFFFD
    const astral = '\u{1F600}'; // U+1F600, UTF-16 units 0xD83D 0xDE00
    expect(astral < bmpHigh).toBe(true); // JavaScript's code-unit order
    expect(compareUtf8(bmpHigh, astral)).toBeLessThan(0); // strcmp on UTF-8 bytes: EF BF BD < F0 9F 98 80
    expect(compareUtf8('doc10', 'doc9')).toBeLessThan(0);
    expect(compareUtf8('abc', 'ab')).toBeGreaterThan(0);
    expect(compareUtf8('x', 'x')).toBe(0);
  });

  it('returns no permutation when the list already is in trec_eval order', () => {
    expect(
      trecEvalOrder(
        run({
          q1: [
            ['c', 3],
            ['b', 3],
            ['a', 1],
          ],
        }).byQuery.get('q1' as never)!,
      ),
    ).toBeUndefined();
    const order = trecEvalOrder(
      run({
        q1: [
          ['a', 3],
          ['b', 3],
          ['c', 4],
        ],
      }).byQuery.get('q1' as never)!,
    );
    expect(Array.from(order!)).toEqual([2, 1, 0]); // c (4), then b before a on the tie
  });

  it('applies -M after ordering: the first N of the trec_eval order', () => {
    const r = run({
      q1: [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ],
    });
    const q = qrels({ q1: { a: 1, c: 1 } });
    expect(values(q, r, ['num_ret', 'num_rel_ret', 'P.2'], { maxRetrieved: 2 }, 'q1')).toEqual({ num_ret: 2, num_rel_ret: 1, P_2: 1 / 2 });
  });

  it('-J removes unjudged documents after -M, the rest close ranks (form_res_rels.c)', () => {
    // trec_eval order e, d, c, b, a; d is not in the qrels, b is judged -1 ("in pool but unjudged").
    const r = run({
      q1: [
        ['e', 5],
        ['d', 4],
        ['c', 3],
        ['b', 2],
        ['a', 1],
      ],
    });
    const q = qrels({ q1: { e: 0, c: 1, b: -1, a: 1 } });
    const measures = ['num_ret', 'num_rel_ret', 'P.2', 'recip_rank', 'unj.5'];
    // judged ranking e, c, a: c is at rank 2, a at rank 3
    expect(values(q, r, measures, { judgedOnly: true }, 'q1')).toEqual({
      num_ret: 3,
      num_rel_ret: 2,
      P_2: 1 / 2,
      recip_rank: 1 / 2,
      unj_5: 0,
    });
    // -M 3 keeps e, d, c first; -J then leaves e, c (a was cut before it could move up)
    expect(values(q, r, measures, { judgedOnly: true, maxRetrieved: 3 }, 'q1')).toEqual({
      num_ret: 2,
      num_rel_ret: 1,
      P_2: 1 / 2,
      recip_rank: 1 / 2,
      unj_5: 0,
    });
    expect(values(q, r, measures, {}, 'q1')).toEqual({ num_ret: 5, num_rel_ret: 2, P_2: 0, recip_rank: 1 / 3, unj_5: 2 / 5 });
  });

  it("-J empties 10.0's -c placeholder ranking: a missing query retrieves nothing", () => {
    const q = qrels({ q1: { a: 1 }, q2: { b: 1 } });
    const r = run({ q1: [['a', 1]] });
    expect(values(q, r, ['num_ret', 'map'], { complete: true, judgedOnly: true }, 'q2')).toEqual({ num_ret: 0, map: 0 });
  });
});
