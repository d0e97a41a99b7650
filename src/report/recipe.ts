/**
 * Every run's recipe: what produced it, shown on screen (the retrievers table) and written into every export
 * (the reports' description column, the flip report JSON's `recipes`). Plain label/value pairs, so the CLI
 * and the page say the same thing in the same words.
 */
import type { EncoderKind, EncoderRecipe } from '../core/encoder-recipe.ts';
import { DEFAULT_RM3_PARAMS, type Rm3Params } from '../core/retrieve/rm3.ts';
import { anseriniRecipe, type AnseriniParams } from '../core/retrieve/bm25-anserini-params.ts';

/** What an encoder's recipe lines need: its recipe and its kind (src/encoders' EncoderConfig has both). */
export interface EncoderRecipeInput extends EncoderRecipe {
  readonly kind: EncoderKind;
}

export interface RecipeItem {
  readonly label: string;
  readonly value: string;
}
export type Recipe = readonly RecipeItem[];

const TOKENIZER = 'RAGFlip (lowercase alphanumeric runs, 43 stop words removed)';
const item = (label: string, value: string | number): RecipeItem => ({ label, value: String(value) });

export function bm25Recipe(k1: number, b: number): Recipe {
  return [item('retriever', 'BM25 (RAGFlip paper, float32 reference scores)'), item('k1', k1), item('b', b), item('tokenizer', TOKENIZER)];
}

/**
 * BM25 as Anserini runs it (core/retrieve/bm25-anserini.ts): the retriever's name as the lab offers it, then
 * the recipe in the core's words (`anseriniRecipe`, what `fliplab bm25 --preset anserini` says too).
 */
export function anseriniLabRecipe(p: AnseriniParams): Recipe {
  return [item('retriever', 'BM25 (Anserini)'), item('recipe', anseriniRecipe(p))];
}

export function rm3Recipe(params: Partial<Rm3Params>): Recipe {
  const p = { ...DEFAULT_RM3_PARAMS, ...params };
  return [
    item('retriever', 'BM25 + RM3 pseudo-relevance feedback (Anserini defaults)'),
    item('k1', p.k1),
    item('b', p.b),
    item('fb_docs', p.fbDocs),
    item('fb_terms', p.fbTerms),
    item('original query weight', p.originalQueryWeight),
    item('tokenizer', TOKENIZER),
  ];
}

export function qlRecipe(mu: number): Recipe {
  return [item('retriever', 'query likelihood, Dirichlet smoothing'), item('μ', mu), item('tokenizer', TOKENIZER)];
}

export interface EncoderRun {
  readonly device?: string;
  readonly adapter?: string | null;
  /** What ran the model: ONNX Runtime's and transformers.js's versions, wasm threads (null: the runtime's own choice). */
  readonly runtime?: { readonly onnxRuntime: string; readonly transformers: string; readonly threads: number | null };
  /** The path's agreement with the reference (WASM fp32) on a sample, in words (encoders/agreement.ts). */
  readonly agreement?: string;
  readonly encodedDocs?: number;
  readonly totalDocs?: number;
}

export function encoderRecipe(config: EncoderRecipeInput, run: EncoderRun = {}): Recipe {
  const out: RecipeItem[] = [
    item('retriever', config.kind === 'sparse' ? 'learned sparse encoder (SPLADE)' : 'dense encoder'),
    item('model', config.model),
    item('revision', config.revision),
    item('dtype', config.dtype),
    item('pooling', config.pooling + (config.normalize ? ', L2-normalized' : '')),
    item('query prefix', config.queryPrefix === '' ? '(none)' : JSON.stringify(config.queryPrefix)),
    item('passage prefix', config.passagePrefix === '' ? '(none)' : JSON.stringify(config.passagePrefix)),
    item('max tokens', config.maxLength),
  ];
  if (config.kind === 'sparse')
    out.push(item('sparse cut-off', config.sparseTopK === null ? 'every positive weight' : `top ${config.sparseTopK}`));
  if (run.device) out.push(item('device', run.device + (run.adapter ? ` (${run.adapter})` : '')));
  if (run.runtime) {
    if (run.runtime.threads !== null) out.push(item('wasm threads', run.runtime.threads));
    out.push(item('ONNX Runtime', run.runtime.onnxRuntime), item('transformers.js', run.runtime.transformers));
  }
  if (run.agreement) out.push(item('agreement with WASM fp32', run.agreement));
  if (run.totalDocs !== undefined) {
    const n = (x: number) => x.toLocaleString('en-US');
    out.push(item('passages encoded', `${n(run.encodedDocs ?? 0)} of ${n(run.totalDocs)}`));
  }
  return out;
}

/** A fused run (core/flips/fusion.ts): its method and parameter, and the two runs it mixes. */
export function fusedRecipe(method: string, candidate: string, reference: string): Recipe {
  return [
    item('retriever', 'fusion of a candidate with the reference'),
    item('method', method),
    item('candidate', candidate),
    item('reference', reference),
  ];
}

export function importedRecipe(file: string, lines: number, queries: number): Recipe {
  return [
    item('retriever', 'imported TREC run'),
    item('file', file),
    item('lines', lines.toLocaleString('en-US')),
    item('queries', queries),
  ];
}

/** A recipe as a JSON object, label → value, in order (the flip report's `recipes`). */
export function recipeObject(recipe: Recipe): Record<string, string> {
  return Object.fromEntries(recipe.map((r) => [r.label, r.value]));
}

/** One line for tables and reports: "retriever · k1 1.5 · b 0.75 · …". */
export function recipeLine(recipe: Recipe): string {
  return recipe.map((r) => (r.label === 'retriever' ? r.value : `${r.label} ${r.value}`)).join(' · ');
}
