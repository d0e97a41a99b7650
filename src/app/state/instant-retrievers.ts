/**
 * The retrievers the lab worker ranks on the CPU with no model — the paper's BM25 and the instant candidates
 * (BM25 + RM3, query likelihood, BM25 as Anserini runs it) — each a row with progress, then ready and selected;
 * and the same retrievers restored by their run names (a link, a reload), a malformed name refused on its row.
 * A part of the Lab (lab.svelte.ts), reaching its rows through the host (host.ts).
 */
import { proxy } from 'comlink';
import { etaMs } from '../../core/progress.ts';
import {
  ANSERINI_PRESETS,
  anseriniRunName,
  checkAnseriniParams,
  parseAnseriniRunName,
  type AnseriniParams,
} from '../../core/retrieve/bm25-anserini-params.ts';
import { bm25RunName, parseBm25RunName } from '../../core/retrieve/bm25.ts';
import { parseQlRunName, qlRunName } from '../../core/retrieve/ql.ts';
import { parseRm3RunName, rm3RunName, type Rm3Params } from '../../core/retrieve/rm3.ts';
import { anseriniLabRecipe, bm25Recipe, qlRecipe, rm3Recipe } from '../../report/recipe.ts';
import type { LexicalSpec } from '../../worker/engine.ts';
import type { RetrieverInfo } from '../types.ts';
import { errorInfo, errorText } from './errors.ts';
import type { Bm25Spec, EncoderHost } from './host.ts';

/** What every BM25 (Anserini) run name starts with (`anseriniRunName`). */
const ANSERINI_RUN_PREFIX = 'bm25-anserini';

/** Why `id`, which starts like a BM25 (Anserini) run name, is not one (`parseAnseriniRunName` refused it). */
export function anseriniNameProblem(id: string): string {
  return (
    `"${id}" is not a BM25 (Anserini) run name: expected bm25-anserini or bm25-anserini-multifield, optionally ` +
    'followed by -k1=<k1>-b=<b> (plain decimals, b at most 1, written only when they differ from 0.9 and 0.4)'
  );
}

export class InstantRetrievers {
  constructor(private readonly host: EncoderHost) {}

  addBm25(k1: number, b: number): Promise<void> {
    const id = bm25RunName({ k1, b });
    return this.#addRanked(id, { kind: 'bm25', k1, b }, bm25Recipe(k1, b), (onProgress) =>
      this.host.lab.runBm25(id, { k1, b }, onProgress),
    );
  }

  /** BM25 + RM3 (Anserini's defaults unless given): an instant candidate, no model to download. */
  addRm3(params: Partial<Rm3Params> = {}): Promise<void> {
    return this.#addLexical(rm3RunName(params), { kind: 'rm3', params }, rm3Recipe(params));
  }

  /** Query likelihood with Dirichlet smoothing: an instant candidate, no model to download. */
  addQl(mu = 1000): Promise<void> {
    return this.#addLexical(qlRunName(mu), { kind: 'ql', mu }, qlRecipe(mu));
  }

  /**
   * BM25 as Anserini runs it (Lucene's BM25 and English analyzer; k1 = 0.9, b = 0.4 and the flat documents
   * unless given): an instant candidate whose run is `fliplab bm25 --preset anserini`'s, byte for byte. Rejects
   * with a RangeError for k1 < 0, b outside [0, 1] or unknown fields, before anything starts.
   */
  async addAnserini(params: Partial<AnseriniParams> = {}): Promise<void> {
    const p = checkAnseriniParams({ ...ANSERINI_PRESETS.anserini, ...params });
    return await this.#addLexical(anseriniRunName(p), { kind: 'anserini', params: p }, anseriniLabRecipe(p));
  }

  /**
   * Start the retriever a run name names, when it is one of these (true); a name that starts like a BM25
   * (Anserini) run but is not one gets a row saying so (true: handled); any other name is not these (false).
   */
  async restore(id: string): Promise<boolean> {
    const bm25 = parseBm25RunName(id);
    if (bm25) await this.addBm25(bm25.k1, bm25.b);
    else if (parseRm3RunName(id)) await this.addRm3(parseRm3RunName(id)!);
    else if (parseQlRunName(id)) await this.addQl(parseQlRunName(id)!.mu);
    else if (parseAnseriniRunName(id)) await this.addAnserini(parseAnseriniRunName(id)!);
    // A link naming a BM25 (Anserini) run this lab cannot make: said on its row, not silently dropped.
    else if (id.startsWith(ANSERINI_RUN_PREFIX)) this.refuse(id, 'lexical', anseriniNameProblem(id));
    else return false;
    return true;
  }

  /** A row for a retriever the view names but the lab cannot make (a malformed name in a link), saying why. */
  refuse(id: string, kind: RetrieverInfo['kind'], error: string): void {
    this.host.upsert({ id, name: id, kind, status: 'error', error });
  }

  #addLexical(id: string, spec: LexicalSpec, recipe: NonNullable<RetrieverInfo['recipe']>): Promise<void> {
    return this.#addRanked(id, { kind: 'lexical', spec }, recipe, (onProgress) => this.host.lab.runLexical(id, spec, onProgress));
  }

  /**
   * A retriever the lab worker ranks on the CPU: its row, the job with progress, then ready and selected. A ready
   * one is only selected again.
   */
  async #addRanked(
    id: string,
    spec: Bm25Spec | { readonly kind: 'lexical'; readonly spec: LexicalSpec },
    recipe: NonNullable<RetrieverInfo['recipe']>,
    job: (onProgress: (done: number, total: number) => void) => Promise<unknown>,
  ): Promise<void> {
    const host = this.host;
    if (host.specs.has(id) && host.statusOf(id) === 'ready') return host.select(id);
    host.specs.set(id, spec);
    const total = host.collection?.docs ?? 0;
    host.upsert({
      id,
      name: id,
      kind: spec.kind,
      status: 'searching',
      device: 'cpu',
      progress: { done: 0, total, cached: 0, etaMs: null, unit: 'documents' },
      recipe,
    });
    const started = performance.now();
    try {
      await job(
        proxy((done: number, all: number) => {
          const elapsed = performance.now() - started;
          host.patch(id, { progress: { done, total: all, cached: 0, etaMs: etaMs(done, all, elapsed), unit: 'documents' } });
        }),
      );
      host.patch(id, { status: 'ready', progress: { done: total, total, cached: 0, etaMs: 0, unit: 'documents' } });
      host.select(id);
    } catch (e) {
      host.patch(id, { status: 'error', error: errorText(errorInfo(e)) });
    }
  }
}
