/**
 * Exact top-k over a corpus whose vectors arrive in batches, in any order (the encoder commits them batch by
 * batch, cache hits first). After every batch the run is the exact top-k over the documents seen so far —
 * the "partial run" the lab analyses live — and once every document has arrived it equals a search over the
 * whole corpus: same arithmetic as `denseTopK` (float64 accumulation in dimension order, then float32) and
 * `sparseSearch` (float64 accumulation in the query's term order; only documents sharing a query term are
 * ranked), and the same tie rule (lower corpus index first), which does not depend on arrival order.
 */
import { grow } from '../core/grow.ts';
import { TopKHeap } from '../core/retrieve/topk.ts';
import type { SparseVector } from '../encoders/pooling.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { Corpus, QueryId, RankedList, Run } from '../core/types.ts';

export class IncrementalVectorRun {
  readonly kind: 'dense' | 'sparse';
  readonly #heaps: TopKHeap[];
  readonly #seen: Uint8Array;
  #count = 0;
  // Dense: queries as one row-major matrix.
  readonly #dim: number;
  readonly #queryMatrix: Float32Array;
  // Sparse: the queries as given, plus a scratch row holding one document's weights by term id.
  readonly #sparseQueries: readonly SparseVector[];
  #docWeights = new Float64Array(0);

  constructor(
    readonly name: string,
    readonly queryIds: readonly QueryId[],
    queryVectors: readonly StoredVector[],
    readonly depth: number,
    readonly docCount: number,
  ) {
    if (queryIds.length !== queryVectors.length)
      throw new RangeError(`expected one vector per query: ${queryIds.length} queries, ${queryVectors.length} vectors`);
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`depth must be a positive integer, got ${depth}`);
    const first = queryVectors[0];
    this.kind = first?.sparse ? 'sparse' : 'dense';
    this.#heaps = queryIds.map(() => new TopKHeap(Math.max(1, Math.min(depth, docCount))));
    this.#seen = new Uint8Array(docCount);
    if (this.kind === 'dense') {
      this.#dim = first?.dense?.length ?? 0;
      this.#queryMatrix = new Float32Array(queryIds.length * this.#dim);
      queryVectors.forEach((v, i) => {
        if (!v.dense || v.dense.length !== this.#dim)
          throw new RangeError(`query ${queryIds[i]}: expected a dense vector of ${this.#dim} dimensions`);
        this.#queryMatrix.set(v.dense, i * this.#dim);
      });
      this.#sparseQueries = [];
    } else {
      this.#dim = 0;
      this.#queryMatrix = new Float32Array(0);
      this.#sparseQueries = queryVectors.map((v, i) => {
        if (!v.sparse) throw new RangeError(`query ${queryIds[i]}: expected a sparse vector`);
        return v.sparse;
      });
    }
  }

  /** Documents whose vectors have arrived. */
  get encodedDocs(): number {
    return this.#count;
  }

  get complete(): boolean {
    return this.#count === this.docCount;
  }

  /** Add document vectors (`positions` are corpus indices). A document seen before is ignored. */
  add(positions: readonly number[], vectors: readonly StoredVector[]): void {
    positions.forEach((d, i) => {
      if (!Number.isInteger(d) || d < 0 || d >= this.docCount)
        throw new RangeError(`document index ${d} is outside the corpus (${this.docCount} documents)`);
      if (this.#seen[d] === 1) return;
      this.#seen[d] = 1;
      this.#count++;
      const v = vectors[i]!;
      if (this.kind === 'dense') this.#addDense(d, v);
      else this.#addSparse(d, v);
    });
  }

  #addDense(d: number, v: StoredVector): void {
    const x = v.dense;
    const dim = this.#dim;
    if (!x || x.length !== dim) throw new RangeError(`document ${d}: expected a dense vector of ${dim} dimensions`);
    const Q = this.#queryMatrix;
    for (let q = 0; q < this.#heaps.length; q++) {
      const off = q * dim;
      let s = 0;
      for (let j = 0; j < dim; j++) s += x[j]! * Q[off + j]!;
      this.#heaps[q]!.push(d, Math.fround(s));
    }
  }

  #addSparse(d: number, v: StoredVector): void {
    const doc = v.sparse;
    if (!doc) throw new RangeError(`document ${d}: expected a sparse vector`);
    let maxTerm = 0;
    for (let i = 0; i < doc.indices.length; i++) maxTerm = Math.max(maxTerm, doc.indices[i]!);
    if (this.#docWeights.length <= maxTerm) this.#docWeights = grow(this.#docWeights, maxTerm + 1);
    const w = this.#docWeights;
    const has = new Set<number>();
    for (let i = 0; i < doc.indices.length; i++) {
      w[doc.indices[i]!] = doc.values[i]!;
      has.add(doc.indices[i]!);
    }
    for (let q = 0; q < this.#sparseQueries.length; q++) {
      const query = this.#sparseQueries[q]!;
      let s = 0;
      let shares = false;
      for (let i = 0; i < query.indices.length; i++) {
        const t = query.indices[i]!;
        if (!has.has(t)) continue;
        shares = true;
        s += query.values[i]! * w[t]!;
      }
      if (shares) this.#heaps[q]!.push(d, s);
    }
    for (const t of has) w[t] = 0;
  }

  /** The run so far: exact over the documents added (the whole corpus once complete). */
  snapshot(corpus: Corpus): Run {
    if (corpus.ids.length !== this.docCount)
      throw new RangeError(`the corpus has ${corpus.ids.length} documents, the run was built for ${this.docCount}`);
    const byQuery = new Map<QueryId, RankedList>();
    this.queryIds.forEach((qid, q) => {
      const heap = this.#heaps[q]!;
      const top = heap.drain((n) => new Float64Array(n));
      // drain() empties the heap: put the kept candidates back.
      for (let i = 0; i < top.indices.length; i++) heap.push(top.indices[i]!, top.scores[i]!);
      byQuery.set(qid, { docs: Array.from(top.indices, (i) => corpus.ids[i]!), scores: top.scores });
    });
    return { name: this.name, byQuery };
  }
}
