/**
 * Where a model's files are, as the encode worker sees them: a picked folder registered in memory, a host with
 * the hub's layout, or transformers.js's Cache Storage. Used to say what a failed load lacked, and which files
 * a download plan can count as already here.
 */
import { MODEL_CONFIG_FILES, MODEL_FILE_CACHE, type EncoderConfig, type EncoderDtype } from '../encoders/presets.ts';
import type { WorkerLoadOptions } from '../lab/encode-types.ts';
import { LOCAL_MODEL_ROOT, ONNX_FILE_BY_DTYPE } from '../lab/local-model.ts';
import { hereUrl } from './onnx-runtime.ts';
import { problemOf, type Problem } from '../lab/problems.ts';

/** Picked model folders by model name ("local/<folder>"): path in the folder → bytes. */
export type LocalModels = ReadonlyMap<string, ReadonlyMap<string, Blob>>;

/** True when a load reads a registered local folder (the local-model root, no remote). */
export function isLocalLoad(source: WorkerLoadOptions['source']): boolean {
  return source.localModelPath !== undefined && new URL(source.localModelPath, hereUrl()).pathname === LOCAL_MODEL_ROOT;
}

/**
 * After a failed load only: which required files the model host does not serve, e.g.
 * "not found: config.json (HTTP 404), onnx/model.onnx (HTTP 404)", or that the host could not be reached
 * at all (offline, or no answer: then nothing is "not found"); null when they all answer.
 */
export async function findMissingFiles(
  config: EncoderConfig,
  dtype: EncoderDtype,
  source: WorkerLoadOptions['source'],
  localModels: LocalModels,
): Promise<{ readonly text: string; readonly problem: Problem } | null> {
  const files = [...MODEL_CONFIG_FILES, ONNX_FILE_BY_DTYPE[dtype]];
  if (isLocalLoad(source)) {
    const have = localModels.get(config.model);
    if (have === undefined) return { text: `no local model folder registered as ${config.model}`, problem: 'not-found' };
    const missing = files.filter((f) => !have.has(f));
    return missing.length === 0 ? null : { text: `missing from the picked folder: ${missing.join(', ')}`, problem: 'not-found' };
  }
  let base: string;
  if (source.allowRemote !== false && source.remoteHost !== undefined) {
    const host = source.remoteHost.endsWith('/') ? source.remoteHost : `${source.remoteHost}/`;
    base = `${host}${config.model}/resolve/${encodeURIComponent(config.revision)}/`;
  } else if (source.localModelPath !== undefined) {
    base = `${source.localModelPath.endsWith('/') ? source.localModelPath : `${source.localModelPath}/`}${config.model}/`;
  } else {
    return null;
  }
  // A folder on disk (Node: no page address to resolve against) is not something fetch can probe.
  if (new URL(base, hereUrl()).protocol === 'file:') return null;
  const answers = await Promise.all(
    files.map(async (file) => {
      try {
        const response = await fetch(new URL(file, new URL(base, hereUrl())), {
          headers: { Range: 'bytes=0-0' },
          cache: 'no-store',
        });
        await response.body?.cancel();
        return response.ok ? null : { file, status: response.status };
      } catch (error) {
        return { file, error };
      }
    }),
  );
  // A request that got no answer means the host is unreachable (or blocked, or the browser is offline):
  // that is what to say, not that the files are missing.
  const unanswered = answers.find((a) => a !== null && 'error' in a);
  if (unanswered && 'error' in unanswered) {
    const problem = problemOf(unanswered.error) ?? 'unreachable';
    const host = new URL(base, hereUrl()).origin;
    const why = problem === 'offline' ? 'this browser is offline' : problem === 'blocked' ? String(unanswered.error) : 'no answer';
    return { text: `could not reach ${host} (${why})`, problem };
  }
  const missing = answers.filter((a): a is { file: string; status: number } => a !== null && 'status' in a);
  if (missing.length === 0) return null;
  const text = `not found: ${missing.map((m) => `${m.file} (HTTP ${m.status})`).join(', ')}`;
  return { text, problem: missing.every((m) => m.status === 404) ? 'not-found' : 'http' };
}

/** Is this model file in transformers.js's Cache Storage (keyed by its remote URL)? */
export async function inBrowserCache(config: EncoderConfig, source: WorkerLoadOptions['source'], path: string): Promise<boolean> {
  if (typeof caches === 'undefined' || source.remoteHost === undefined) return false;
  const host = source.remoteHost.replace(/\/+$/, '');
  const url = `${host}/${config.model}/resolve/${encodeURIComponent(config.revision)}/${path}`;
  return (await (await caches.open(MODEL_FILE_CACHE)).match(url)) !== undefined;
}
