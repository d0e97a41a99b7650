/**
 * The agreement check of a corpus job (encoders/agreement.ts has the numbers and thresholds): before a path
 * other than the reference — WASM with fp32 weights — encodes anything, the sample the page sent is encoded on
 * the reference and then on the path, and the path is refused when they disagree. The two models are loaded one
 * after the other (the reference first, then the path, which the job goes on with), never both at once: a large
 * encoder barely fits the tab once. The reference's files are planned and confirmed like any download. A worker
 * checks a path once (the passages job after the queries job finds it checked).
 */
import { planModelDownload, planProblem, type LoadedEncoder } from '../encoders/encoder.ts';
import { planBatches } from '../encoders/batching.ts';
import { DEFAULT_BATCH_PLAN, encodeAdaptively } from '../encoders/job.ts';
import {
  compareAgreement,
  DisagreementError,
  type AgreementReport,
  type AgreementSample,
  type SampleVectors,
} from '../encoders/agreement.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { EncoderConfig, EncoderDtype } from '../encoders/presets.ts';
import type { ModelCallback, WorkerDevice, WorkerLoadOptions } from '../lab/encode-types.ts';
import { inBrowserCache, isLocalLoad } from './model-files.ts';
import type { WorkerModels } from './models.ts';
import { pickDevice } from './onnx-runtime.ts';

/** The sample's vectors with `encoder`, in the sample's order: length-grouped batches, split if memory runs out. */
export async function encodeSample(encoder: LoadedEncoder, sample: AgreementSample): Promise<SampleVectors> {
  const role = async (texts: readonly string[], r: 'query' | 'passage'): Promise<StoredVector[]> => {
    const out = new Array<StoredVector>(texts.length);
    for (const batch of planBatches(encoder.countTokens(texts, r), DEFAULT_BATCH_PLAN)) {
      const encoded = await encodeAdaptively(
        encoder,
        batch.indices.map((i) => texts[i]!),
        r,
      );
      batch.indices.forEach((p, i) => {
        out[p] = encoded.dense
          ? { dense: encoded.dense[i]!, tokens: encoded.tokens[i] ?? 0 }
          : { sparse: encoded.sparse![i]!, tokens: encoded.tokens[i] ?? 0 };
      });
    }
    return out;
  };
  return { queries: await role(sample.queries, 'query'), passages: await role(sample.passages, 'passage') };
}

/** What a check left for the job: the report of a path checked (passed), or why none could run; neither for the reference path. */
export interface AgreementOutcome {
  readonly report?: AgreementReport;
  readonly unchecked?: string;
}

const checked = new WeakMap<WorkerModels, Map<string, AgreementOutcome>>();
const keyOf = (config: EncoderConfig, load: WorkerLoadOptions, dtype: EncoderDtype, sample: AgreementSample) =>
  JSON.stringify([config, dtype, load.device, load.avoidSoftwareAdapter ?? false, load.source, sample]);

/** A path checked on `sample` by this worker already, and what came of it (undefined: not yet). */
export function checkedBefore(
  models: WorkerModels,
  config: EncoderConfig,
  load: WorkerLoadOptions,
  dtype: EncoderDtype,
  sample: AgreementSample,
): AgreementOutcome | undefined {
  return checked.get(models)?.get(keyOf(config, load, dtype, sample));
}

/**
 * The reference's vectors of `sample`, when the path `load` gets for `dtype` is not the reference (null: it is,
 * nothing to check), or why they cannot be had (the model has no fp32 weights where the path's came from).
 * `onCheck` hears that a check begins. Leaves the reference loaded in `models`; loading the path replaces it.
 */
export async function referenceVectors(
  models: WorkerModels,
  config: EncoderConfig,
  load: WorkerLoadOptions,
  dtype: EncoderDtype,
  sample: AgreementSample,
  on: { readonly onModel?: ModelCallback | undefined; readonly onCheck?: () => void } = {},
): Promise<SampleVectors | { readonly unchecked: string } | null> {
  const { onModel, onCheck } = on;
  models.ready();
  const path = await pickDevice(load, dtype);
  if (path.device === 'wasm' && dtype === 'fp32') return null;
  onCheck?.();
  let reference: WorkerLoadOptions = { device: 'wasm', dtype: 'fp32', source: load.source };
  if (isLocalLoad(load.source)) {
    const missing = await models.missingFiles(config, 'fp32', load.source);
    if (missing !== null) return { unchecked: `the reference (fp32 weights) cannot be loaded: ${missing.text}` };
  } else {
    const plan = await planModelDownload(config, 'fp32', load.source, {
      isCached: (p) => inBrowserCache(config, load.source, p),
    });
    const problem = planProblem(plan);
    if (problem !== null) return { unchecked: `the reference (fp32 weights) cannot be loaded: ${problem}` };
    await onModel?.({ kind: 'plan', plan, purpose: 'reference' });
    if (plan.onnxFolder !== null) reference = { ...reference, onnxFolder: plan.onnxFolder, externalData: plan.externalData };
  }
  await models.loadEncoder(config, reference, onModel);
  return encodeSample(models.encoder!, sample);
}

/**
 * Compare the path now loaded in `models` with the reference's vectors, remember the outcome, and throw a
 * DisagreementError (the path unloaded) when it fails.
 */
export async function judgePath(
  models: WorkerModels,
  path: { readonly config: EncoderConfig; readonly load: WorkerLoadOptions; readonly dtype: EncoderDtype; readonly device: WorkerDevice },
  sample: AgreementSample,
  reference: SampleVectors | { readonly unchecked: string } | null,
): Promise<AgreementOutcome> {
  const { config, load, dtype, device } = path;
  let outcome: AgreementOutcome = {};
  if (reference !== null && 'unchecked' in reference) outcome = { unchecked: reference.unchecked };
  else if (reference !== null) {
    const report = compareAgreement(await encodeSample(models.encoder!, sample), reference, { device, dtype });
    if (!report.passed) {
      await models.dispose();
      throw new DisagreementError(report);
    }
    outcome = { report };
  }
  let mine = checked.get(models);
  if (mine === undefined) checked.set(models, (mine = new Map()));
  mine.set(keyOf(config, load, dtype, sample), outcome);
  return outcome;
}
