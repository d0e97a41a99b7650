/**
 * Encoder retriever ids: the names encoder runs carry in reports and exports, and what the URL stores so a
 * deep link can rebuild the same retrievers ("bge-large", "e5-large-q8", "bge-small:my-org/my-model-max128"), and
 * runs of vector packs whose recipe is no preset's ("pack:my-company-embedder-v4~1f2e3d4c", see `recipeRunId`).
 * BM25 runs are named by the core (`bm25RunName`: "bm25", "bm25-k1=1.2-b=0.65"), the same in the CLI.
 */
import { PRESETS, type EncoderConfig, type EncoderDtype, type PresetId } from '../encoders/presets.ts';
import { fnv1a } from '../core/fnv.ts';

/** Model names of picked local folders (see local-model.ts). */
export const LOCAL_MODEL_PREFIX = 'local/';

/** Encoder configuration for a preset, optionally with another checkpoint (same recipe) and dtype. */
export function encoderConfig(
  preset: PresetId,
  options: { model?: string; revision?: string; dtype?: EncoderDtype; maxLength?: number } = {},
): EncoderConfig {
  const base = PRESETS[preset];
  const model = options.model?.trim() || base.model;
  const custom = model !== base.model;
  const maxLength = options.maxLength ?? base.maxLength;
  if (!Number.isInteger(maxLength) || maxLength < 8 || maxLength > 8192)
    throw new RangeError(`max tokens must be an integer in [8, 8192], got ${maxLength}`);
  return {
    ...base,
    id: custom ? `${preset}:${model}` : base.id,
    label: custom ? `${model} (${base.label} recipe)` : base.label,
    model,
    revision: options.revision?.trim() || base.revision,
    dtype: options.dtype ?? base.dtype,
    maxLength,
  };
}

/**
 * Run ids (also the run names in reports) say what departs from the preset, so variants can be compared
 * side by side and a deep link can rebuild them: "bge-large", "bge-large-q8", "bge-small:my-org/my-model-max128"
 * (a custom checkpoint with the bge-small recipe, truncated to 128 tokens).
 */
export function encoderRunId(config: EncoderConfig): string {
  if (config.id.startsWith(RECIPE_RUN_PREFIX)) return recipeRunId(config);
  const preset = config.id.split(':')[0] as PresetId;
  const recipeLength = PRESETS[preset]?.maxLength ?? config.maxLength;
  // A hub revision other than the preset's is part of the id ("…@<revision>"); a local folder's revision is
  // its files' fingerprint, kept apart (localStorage) so ids stay readable.
  const base = PRESETS[preset]?.revision ?? 'main';
  const revision =
    config.revision !== base && !config.model.startsWith(LOCAL_MODEL_PREFIX) && REVISION.test(config.revision) ? `@${config.revision}` : '';
  return [
    `${config.id}${revision}`,
    config.dtype === 'fp32' ? '' : config.dtype,
    config.maxLength === recipeLength ? '' : `max${config.maxLength}`,
  ]
    .filter((s) => s !== '')
    .join('-');
}

/** Revisions a run id can carry: a commit hash, a tag or a branch without dashes or "@". */
const REVISION = /^[A-Za-z0-9._/]+$/;

/** The configuration behind a run id made by `encoderRunId`; null for ids that are not encoder runs. */
export function parseEncoderRunId(id: string): EncoderConfig | null {
  const m = /^([a-z0-9-]+?)(?::([^@]+?))?(?:@([A-Za-z0-9._/]+?))?(?:-(fp16|q8))?(?:-max(\d+))?$/.exec(id);
  if (!m || !Object.hasOwn(PRESETS, m[1]!)) return null;
  try {
    return encoderConfig(m[1] as PresetId, {
      ...(m[2] ? { model: m[2] } : {}),
      ...(m[3] ? { revision: m[3] } : {}),
      ...(m[4] ? { dtype: m[4] as EncoderDtype } : {}),
      ...(m[5] ? { maxLength: Number(m[5]) } : {}),
    });
  } catch {
    return null;
  }
}

/** The recipe fields a preset fixes (the checkpoint, revision, dtype and max tokens may differ). */
const RECIPE_FIELDS = ['pooling', 'normalize', 'queryPrefix', 'passagePrefix', 'sparseTopK'] as const;

/** Everything of an encoder configuration that changes its vectors: a vector pack's recipe. */
export type EncoderRecipe = Omit<EncoderConfig, 'id' | 'label' | 'kind'>;

/**
 * The lab's configuration for vectors made with `recipe` (a vector pack's) under a preset's name: the preset of
 * that checkpoint if there is one, else the first preset with the same recipe, the checkpoint put in; null when
 * no preset's recipe fits (then the run is named by `recipeRunId`). Throws when a preset would refuse a field
 * (a max tokens outside its range).
 */
export function configForRecipe(recipe: EncoderRecipe): EncoderConfig | null {
  const fits = (Object.keys(PRESETS) as PresetId[]).filter((p) => RECIPE_FIELDS.every((f) => PRESETS[p][f] === recipe[f]));
  const preset = fits.find((p) => PRESETS[p].model === recipe.model) ?? fits[0];
  if (preset === undefined) return null;
  return encoderConfig(preset, { model: recipe.model, revision: recipe.revision, dtype: recipe.dtype, maxLength: recipe.maxLength });
}

/**
 * Runs of recipes no preset has (vectors from `fliplab encode --pooling mean`, from an embedding API, from any
 * pipeline) are named "pack:<model>~<fingerprint>": the model id with every character outside
 * [A-Za-z0-9._/-] made "-" (readable, URL- and TREC-safe), and 8 hex digits of FNV-1a (32-bit) over the whole
 * recipe's canonical JSON, so two recipes of one model never share a name and the same recipe always gets
 * the same one. The id cannot hold the recipe (prefixes are free text): a deep link or a reload finds it again
 * in the embedding cache, whose records keep every field (`storedRecipeConfig` in packs.ts).
 */
export const RECIPE_RUN_PREFIX = 'pack:';
const RECIPE_RUN = /^pack:[A-Za-z0-9._/-]+~[0-9a-f]{8}$/;

export function isRecipeRunId(id: string): boolean {
  return RECIPE_RUN.test(id);
}

/** The recipe's fields in the manifest's order (nothing else a JSON object may carry). */
export function recipeOf(recipe: EncoderRecipe): EncoderRecipe {
  const { model, revision, dtype, pooling, normalize, queryPrefix, passagePrefix, maxLength, sparseTopK } = recipe;
  return { model, revision, dtype, pooling, normalize, queryPrefix, passagePrefix, maxLength, sparseTopK };
}

function fingerprint(recipe: EncoderRecipe): string {
  const r = recipeOf(recipe);
  const { model, revision, dtype, pooling, normalize, queryPrefix, passagePrefix, maxLength, sparseTopK } = r;
  const canonical = JSON.stringify([model, revision, dtype, pooling, normalize, queryPrefix, passagePrefix, maxLength, sparseTopK]);
  return (fnv1a(new TextEncoder().encode(canonical)) >>> 0).toString(16).padStart(8, '0');
}

export function recipeRunId(recipe: EncoderRecipe): string {
  const model = recipe.model.replace(/[^A-Za-z0-9._/-]+/g, '-').slice(0, 100) || 'model';
  return `${RECIPE_RUN_PREFIX}${model}~${fingerprint(recipe)}`;
}

/** The configuration of a recipe run: the recipe as given, named by `recipeRunId`. */
export function recipeConfig(recipe: EncoderRecipe): EncoderConfig {
  const r = recipeOf(recipe);
  const prefixes = r.queryPrefix === '' && r.passagePrefix === '' ? 'no prefixes' : 'prefixes';
  return {
    id: recipeRunId(r),
    label: `${r.model} (${r.pooling} pooling, ${prefixes}; a vector pack's recipe)`,
    kind: r.pooling === 'splade-max' ? 'sparse' : 'dense',
    ...r,
  };
}
