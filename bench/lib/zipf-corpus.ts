/**
 * A seeded synthetic collection for throughput benches: documents and queries drawn from one Zipf
 * vocabulary, P(rank r) ∝ r^−s. Words are pronounceable consonant–vowel strings that are never RAGFlip stop
 * words; text is split into sentences with a capitalised first word and a full stop, so tokenizers do some
 * real work. Deterministic for a given seed.
 */
import type { Corpus, DocId, DocIndex, Queries, QueryId } from '../../src/core/types.ts';
import { asDocId, asDocIndex, asQueryId } from '../../src/core/io/ids.ts';
import { RAGFLIP_STOP_WORDS } from '../../src/core/text/stopwords.ts';
import { mulberry32 } from './rng.ts';

export { mulberry32 };

const CONSONANTS = 'bcdfghjklmnprstvwxz';
const VOWELS = 'aeiou';

/** `count` distinct words, shortest first (rank 1 is the shortest), none of them a stop word. */
export function zipfWords(count: number): string[] {
  const syllables: string[] = [];
  for (const c of CONSONANTS) for (const v of VOWELS) syllables.push(c + v);
  const out: string[] = [];
  const S = syllables.length;
  for (let len = 1; out.length < count; len++) {
    const total = S ** len;
    for (let i = 0; i < total && out.length < count; i++) {
      let w = '';
      let x = i;
      for (let k = 0; k < len; k++) {
        w += syllables[x % S]!;
        x = Math.floor(x / S);
      }
      if (!RAGFLIP_STOP_WORDS.has(w)) out.push(w);
    }
  }
  return out;
}

/** Sampler of ranks 0..V−1 with P(r) ∝ (r+1)^−s, by binary search on the cumulative distribution. */
export function zipfSampler(vocabularySize: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(vocabularySize);
  let sum = 0;
  for (let r = 0; r < vocabularySize; r++) {
    sum += (r + 1) ** -s;
    cdf[r] = sum;
  }
  for (let r = 0; r < vocabularySize; r++) cdf[r] = cdf[r]! / sum;
  return () => {
    const u = random();
    let lo = 0;
    let hi = vocabularySize - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface ZipfCollectionSpec {
  readonly docs: number;
  readonly meanDocWords: number;
  readonly queries: number;
  readonly minQueryWords: number;
  readonly maxQueryWords: number;
  readonly vocabulary: number;
  readonly exponent: number;
  readonly seed: number;
}

/** FiQA-sized: 57,638 passages of ~130 words, 648 queries of 3–10 words, 50k word types, s = 1.07. */
export const FIQA_SIZED: ZipfCollectionSpec = {
  docs: 57_638,
  meanDocWords: 130,
  queries: 648,
  minQueryWords: 3,
  maxQueryWords: 10,
  vocabulary: 50_000,
  exponent: 1.07,
  seed: 20_260_501,
};

const SENTENCE_WORDS_MIN = 6;
const SENTENCE_WORDS_SPAN = 14;

function sentenceText(words: readonly string[], count: number, sample: () => number, random: () => number): string {
  // Built as an array and joined: a flat string, like JSON.parse gives (`+=` would leave a deep rope).
  const parts: string[] = new Array<string>(count);
  let untilStop = SENTENCE_WORDS_MIN + Math.floor(random() * SENTENCE_WORDS_SPAN);
  let capital = true;
  for (let i = 0; i < count; i++) {
    let w = words[sample()]!;
    if (capital) {
      w = w[0]!.toUpperCase() + w.slice(1);
      capital = false;
    }
    if (--untilStop === 0 || i === count - 1) {
      w += '.';
      capital = true;
      untilStop = SENTENCE_WORDS_MIN + Math.floor(random() * SENTENCE_WORDS_SPAN);
    }
    parts[i] = w;
  }
  return parts.join(' ');
}

export function zipfCollection(spec: ZipfCollectionSpec): { corpus: Corpus; queries: Queries } {
  const random = mulberry32(spec.seed);
  const words = zipfWords(spec.vocabulary);
  const sample = zipfSampler(spec.vocabulary, spec.exponent, random);
  const ids: DocId[] = [];
  const titles: string[] = [];
  const texts: string[] = [];
  const indexOf = new Map<DocId, DocIndex>();
  const spread = Math.round(spec.meanDocWords * 0.4);
  for (let d = 0; d < spec.docs; d++) {
    const id = asDocId(`d${d}`);
    ids.push(id);
    indexOf.set(id, asDocIndex(d));
    titles.push('');
    const len = spec.meanDocWords - spread + Math.floor(random() * (2 * spread + 1));
    texts.push(sentenceText(words, len, sample, random));
  }
  const qids: QueryId[] = [];
  const qtexts: string[] = [];
  const qIndexOf = new Map<QueryId, number>();
  for (let q = 0; q < spec.queries; q++) {
    const id = asQueryId(`q${q}`);
    qids.push(id);
    qIndexOf.set(id, q);
    const len = spec.minQueryWords + Math.floor(random() * (spec.maxQueryWords - spec.minQueryWords + 1));
    const parts: string[] = [];
    for (let i = 0; i < len; i++) parts.push(words[sample()]!);
    qtexts.push(`${parts.join(' ')}?`);
  }
  return { corpus: { ids, titles, texts, indexOf }, queries: { ids: qids, texts: qtexts, indexOf: qIndexOf } };
}
