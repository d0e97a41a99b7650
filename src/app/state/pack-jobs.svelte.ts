/**
 * Vector packs in the lab: importing one (a .zip or a folder's files, checked against the open collection in
 * the lab worker, its vectors added to the cache, then its encoder added, which rebuilds the run from the
 * cache with no model) and exporting an encoder's cached vectors as one.
 */
import { proxy, transfer } from 'comlink';
import { countOf, formatCount as count } from '../../core/count.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import { encoderRunId, isRecipeRunId, LOCAL_MODEL_PREFIX, parseEncoderRunId } from '../../lab/retriever-ids.ts';
import { localModelSource } from '../../lab/local-model.ts';
import type { EncoderJobs } from './encoder-jobs.svelte.ts';
import { errorInfo, errorText } from './errors.ts';
import type { EncoderHost } from './host.ts';
import { rememberLocalRevision } from './local-revisions.ts';

export class PackJobs {
  /** The last import: what it is doing, what it did, or why it failed. */
  status: { readonly state: 'importing' | 'done' | 'error'; readonly text: string; readonly id?: string } | null = $state.raw(null);

  readonly #host: EncoderHost;
  readonly #encoders: Pick<EncoderJobs, 'addEncoder' | 'supersede'>;

  constructor(host: EncoderHost, encoders: Pick<EncoderJobs, 'addEncoder' | 'supersede'>) {
    this.#host = host;
    this.#encoders = encoders;
  }

  /** Import a pack; a pack that lacks some passages or queries has them encoded, which loads the model. */
  async import(files: readonly CollectionFile[]): Promise<void> {
    if (this.#host.collection === null) return;
    this.status = { state: 'importing', text: 'checking the pack…' };
    try {
      // Handed over, not copied: a FiQA-sized pack is hundreds of MB (the page does not need the bytes again).
      const buffers = files.map((f) => f.bytes.buffer as ArrayBuffer).filter((b, i, all) => all.indexOf(b) === i);
      const result = await this.#host.lab.importPack(
        transfer(files, buffers),
        proxy((done: number, total: number) => {
          this.status = { state: 'importing', text: `storing vectors: ${count(done)} of ${count(total)}` };
        }),
      );
      const id = encoderRunId(result.config);
      // A revision the run id cannot carry (a local folder's fingerprint, a branch with dashes) is remembered
      // (a recipe run's is found in the cache with the rest of its recipe).
      if (!isRecipeRunId(id) && result.config.revision !== parseEncoderRunId(id)?.revision)
        rememberLocalRevision(result.config.model, result.config.revision);
      const complete = result.passages === result.totalPassages && result.queries === result.totalQueries;
      this.status = {
        state: 'done',
        id,
        text:
          `imported ${id}: ${count(result.passages)} of ${countOf(result.totalPassages, 'passage')} and ` +
          `${count(result.queries)} of ${countOf(result.totalQueries, 'query')} ` +
          `(encoded on ${result.device}, ${result.valueType})` +
          (complete ? '; no model needed' : `; the rest will be encoded with ${result.config.model}, which loads it`),
      };
      // A job of the same encoder still running is superseded (its row and run are taken over by this one).
      this.#encoders.supersede(id);
      // A pack of a local folder's vectors: anything missing is encoded from that folder, never a host.
      const job = this.#encoders.addEncoder(
        result.config,
        result.config.model.startsWith(LOCAL_MODEL_PREFIX) ? localModelSource() : undefined,
      );
      // A model that does not load (an embedding API's name, say) cannot complete the pack: say what it lacks.
      void job.then(() => {
        const row = this.#host.retrievers.find((r) => r.id === id);
        if (result.missing !== null && row?.status === 'error' && row.failure === 'model-load')
          this.#host.patch(id, { error: `${result.missing}, and its model did not load, so the pack must carry them: ${row.error}` });
      });
    } catch (e) {
      this.status = { state: 'error', text: errorText(errorInfo(e)) };
    }
  }

  /** An encoder's cached vectors of the open collection as a vector pack (.zip). */
  async export(id: string): Promise<{ name: string; bytes: Uint8Array }> {
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder') throw new Error(`${id} is not an encoder`);
    const bytes = await this.#host.lab.exportPack(spec.config, 'fliplab browser lab');
    return { name: `${this.#host.collection?.name ?? 'collection'}-${id}.fliplab-vectors.zip`, bytes };
  }
}
