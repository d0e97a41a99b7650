/**
 * Writes the generated model fixtures in the transformers.js local-model layout:
 *
 *   <outDir>/fliplab/tiny-bert     BertModel        (last_hidden_state): stands in for BGE / E5
 *   <outDir>/fliplab/tiny-splade   BertForMaskedLM  (logits):            stands in for SPLADE
 *   <outDir>/fliplab/tiny-gpt2     GPT2LMHeadModel  (logits, KV cache):  stands in for an instruct reader
 *   <outDir>/fliplab/tiny-gpt2-base  the same model without a chat template (a base model, refused as a reader)
 *   <outDir>/fliplab/tiny-bert-offset, tiny-bert-overflow  BertModels whose fp16 file half precision gets wrong
 *                                  (precision-traps.ts: disagreeing weights; NaN from overflowing arithmetic)
 *
 * the encoders with onnx/model.onnx (fp32), onnx/model_fp16.onnx (the same graph with fp16 weights, fp16.ts)
 * and onnx/model_quantized.onnx (q8.ts); the decoders with onnx/model.onnx and onnx/model_quantized.onnx.
 *
 *   node --import tsx scripts/models/make-fixtures.ts [outDir] [--force]
 *
 * Default outDir: test/fixtures/generated/models (gitignored). Idempotent: a folder whose
 * fixture-manifest.json names the current generator version and whose files still match their recorded
 * hashes is left alone. Each folder is written to a temporary sibling and renamed into place, so parallel
 * test workers never see a half-written model.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  buildTinyBert,
  contentsByteLength,
  tinyBertFiles,
  writeFileContents,
  type FileContents,
  type TinyBertOptions,
} from './tiny-bert.ts';
import { buildTinyGpt2, tinyGpt2Files, type TinyGpt2Options } from './tiny-gpt2.ts';
import { offsetBert, overflowBert, trapFiles } from './precision-traps.ts';

/**
 * Bump when the fixtures change in a way the source hash would not catch (it covers the generator files).
 * 2: folders also hold onnx/model_fp16.onnx. 3: and onnx/model_quantized.onnx (q8.ts).
 */
export const FIXTURE_FORMAT = 3;

export const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../../test/fixtures/generated/models', import.meta.url));

export interface FixtureSpec {
  /** transformers.js model id, and the folder under outDir. */
  readonly id: string;
  readonly options: TinyBertOptions;
  /** The pooling the model is meant for, written to the manifest so `fliplab search --model-dir` needs no --pooling. */
  readonly pooling: 'cls' | 'mean' | 'splade';
}

export const TINY_BERT: FixtureSpec = {
  id: 'fliplab/tiny-bert',
  options: { head: 'none', seed: 1, name: 'fliplab/tiny-bert' },
  pooling: 'cls',
};
export const TINY_SPLADE: FixtureSpec = {
  id: 'fliplab/tiny-splade',
  options: { head: 'mlm', seed: 2, name: 'fliplab/tiny-splade' },
  pooling: 'splade',
};
export const FIXTURE_MODELS: readonly FixtureSpec[] = [TINY_BERT, TINY_SPLADE];

/** A generated decoder for the reader (answer-level flips). */
export interface ReaderFixtureSpec {
  readonly id: string;
  readonly options: TinyGpt2Options;
  readonly withoutChatTemplate: boolean;
}

export const TINY_READER: ReaderFixtureSpec = {
  id: 'fliplab/tiny-gpt2',
  options: { seed: 1, name: 'fliplab/tiny-gpt2' },
  withoutChatTemplate: false,
};
export const TINY_READER_BASE: ReaderFixtureSpec = {
  id: 'fliplab/tiny-gpt2-base',
  options: { seed: 1, name: 'fliplab/tiny-gpt2-base' },
  withoutChatTemplate: true,
};
export const READER_FIXTURES: readonly ReaderFixtureSpec[] = [TINY_READER, TINY_READER_BASE];

/**
 * Encoders whose fp16 file half precision really gets wrong (precision-traps.ts), for the agreement check: one
 * whose fp16 weights disagree with its fp32 ones, one whose fp16 arithmetic overflows into NaN on the token `÷`.
 */
export const TINY_BERT_OFFSET: FixtureSpec = {
  id: 'fliplab/tiny-bert-offset',
  options: { head: 'none', seed: 1, name: 'fliplab/tiny-bert-offset' },
  pooling: 'cls',
};
export const TINY_BERT_OVERFLOW: FixtureSpec = {
  id: 'fliplab/tiny-bert-overflow',
  options: { head: 'none', seed: 1, name: 'fliplab/tiny-bert-overflow' },
  pooling: 'cls',
};

/** A generated cross-encoder (BertForSequenceClassification, one label) for the judges; the LLM judge is TINY_READER. */
export const TINY_CROSS_ENCODER: FixtureSpec = {
  id: 'fliplab/tiny-cross-encoder',
  options: { head: 'classifier', seed: 3, name: 'fliplab/tiny-cross-encoder' },
  pooling: 'cls',
};

const MANIFEST = 'fixture-manifest.json';
const GENERATOR_SOURCES = [
  'onnx-writer.ts',
  'fp16.ts',
  'q8.ts',
  'tiny-bert.ts',
  'wordpiece-vocab.ts',
  'tiny-gpt2.ts',
  'bytelevel-bpe.ts',
  'precision-traps.ts',
  'make-fixtures.ts',
];

interface Manifest {
  readonly version: string;
  readonly id: string;
  readonly options: TinyBertOptions | TinyGpt2Options;
  /** Encoders only. */
  readonly pooling?: FixtureSpec['pooling'];
  readonly files: Readonly<Record<string, { readonly bytes: number; readonly sha256: string }>>;
}

export interface FixtureResult {
  readonly id: string;
  readonly dir: string;
  /** `'written'`: generated now; `'up-to-date'`: an identical version was already there. */
  readonly status: 'written' | 'up-to-date';
  /** Relative path → size in bytes. */
  readonly files: Readonly<Record<string, number>>;
}

function sha256(contents: Uint8Array | FileContents): string {
  const hash = createHash('sha256');
  if (typeof contents === 'string' || contents instanceof Uint8Array) hash.update(contents);
  else for (const chunk of contents) hash.update(chunk);
  return hash.digest('hex');
}

/** `<FIXTURE_FORMAT>-<hash of the generator sources>`: changes whenever the generator code changes. */
export async function fixtureVersion(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of GENERATOR_SOURCES) hash.update(await readFile(new URL(`./${file}`, import.meta.url)));
  return `${FIXTURE_FORMAT}-${hash.digest('hex').slice(0, 16)}`;
}

/** What a fixture folder is: its id, its options and pooling (as recorded in the manifest), and how to make its files. */
interface AnySpec {
  readonly id: string;
  readonly options: TinyBertOptions | TinyGpt2Options;
  readonly pooling?: FixtureSpec['pooling'];
  readonly files: () => Record<string, FileContents>;
}

const encoderSpec = (spec: FixtureSpec): AnySpec => ({
  ...spec,
  files: () => tinyBertFiles(buildTinyBert(spec.options), { fp16: true, q8: true }),
});
const readerSpec = (spec: ReaderFixtureSpec): AnySpec => ({
  id: spec.id,
  options: spec.options,
  files: () => tinyGpt2Files(buildTinyGpt2(spec.options), { q8: true, withoutChatTemplate: spec.withoutChatTemplate }),
});

async function isUpToDate(dir: string, version: string, spec: AnySpec): Promise<Manifest | undefined> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.version !== version || manifest.id !== spec.id || manifest.pooling !== spec.pooling) return undefined;
  if (JSON.stringify(manifest.options) !== JSON.stringify(spec.options)) return undefined;
  for (const [path, { sha256: expected }] of Object.entries(manifest.files)) {
    try {
      if (sha256(await readFile(join(dir, path))) !== expected) return undefined;
    } catch {
      return undefined;
    }
  }
  return manifest;
}

const sizes = (m: Manifest): Record<string, number> => Object.fromEntries(Object.entries(m.files).map(([path, f]) => [path, f.bytes]));

async function writeFixture(outDir: string, spec: AnySpec, version: string, force: boolean): Promise<FixtureResult> {
  const dir = join(outDir, spec.id);
  const existing = force ? undefined : await isUpToDate(dir, version, spec);
  if (existing) return { id: spec.id, dir, status: 'up-to-date', files: sizes(existing) };

  const files = spec.files();
  const manifest: Manifest = {
    version,
    id: spec.id,
    options: spec.options,
    ...(spec.pooling === undefined ? {} : { pooling: spec.pooling }),
    files: Object.fromEntries(
      Object.entries(files).map(([path, data]) => [path, { bytes: contentsByteLength(data), sha256: sha256(data) }]),
    ),
  };
  const suffix = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const staging = `${dir}.tmp-${suffix}`;
  await mkdir(join(staging, 'onnx'), { recursive: true });
  for (const [path, data] of Object.entries(files)) await writeFileContents(join(staging, path), data);
  await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);

  // Swap into place. If another process finished the same version first, keep theirs.
  const retired = `${dir}.old-${suffix}`;
  await rename(dir, retired).catch(() => undefined);
  try {
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (!(await isUpToDate(dir, version, spec))) throw error;
  }
  await rm(retired, { recursive: true, force: true });
  return { id: spec.id, dir, status: 'written', files: sizes(manifest) };
}

async function writeFixtures(specs: readonly AnySpec[], outDir: string, force: boolean): Promise<FixtureResult[]> {
  const version = await fixtureVersion();
  const results: FixtureResult[] = [];
  for (const spec of specs) {
    await mkdir(dirname(join(outDir, spec.id)), { recursive: true });
    results.push(await writeFixture(outDir, spec, version, force));
  }
  return results;
}

/** Generate the encoder fixtures under `outDir` (see the file comment); returns one result per model. */
export async function makeModelFixtures(
  outDir: string = DEFAULT_MODELS_DIR,
  opts: { readonly force?: boolean } = {},
): Promise<FixtureResult[]> {
  return writeFixtures(FIXTURE_MODELS.map(encoderSpec), outDir, opts.force ?? false);
}

/** Generate the precision-trap encoders under `outDir` ({@link TINY_BERT_OFFSET}, {@link TINY_BERT_OVERFLOW}), in the same way. */
export async function makeTrapFixtures(
  outDir: string = DEFAULT_MODELS_DIR,
  opts: { readonly force?: boolean } = {},
): Promise<FixtureResult[]> {
  const specs: AnySpec[] = [
    { ...TINY_BERT_OFFSET, files: () => trapFiles(offsetBert(TINY_BERT_OFFSET.options), 'weights') },
    { ...TINY_BERT_OVERFLOW, files: () => trapFiles(overflowBert(TINY_BERT_OVERFLOW.options), 'arithmetic') },
  ];
  return writeFixtures(specs, outDir, opts.force ?? false);
}

/** Generate the judge fixtures under `outDir` ({@link TINY_CROSS_ENCODER}; fp32 only), in the same way. */
export async function makeJudgeFixtures(
  outDir: string = DEFAULT_MODELS_DIR,
  opts: { readonly force?: boolean } = {},
): Promise<FixtureResult[]> {
  const spec: AnySpec = { ...TINY_CROSS_ENCODER, files: () => tinyBertFiles(buildTinyBert(TINY_CROSS_ENCODER.options)) };
  return writeFixtures([spec], outDir, opts.force ?? false);
}

/** Generate the decoder fixtures under `outDir` ({@link READER_FIXTURES}), in the same way. */
export async function makeReaderFixtures(
  outDir: string = DEFAULT_MODELS_DIR,
  opts: { readonly force?: boolean } = {},
): Promise<FixtureResult[]> {
  return writeFixtures(READER_FIXTURES.map(readerSpec), outDir, opts.force ?? false);
}

async function main(argv: readonly string[]): Promise<void> {
  const force = argv.includes('--force');
  const outDir = resolve(argv.find((a) => !a.startsWith('--')) ?? DEFAULT_MODELS_DIR);
  const results = [];
  for (const make of [makeModelFixtures, makeTrapFixtures, makeReaderFixtures, makeJudgeFixtures])
    results.push(...(await make(outDir, { force })));
  for (const r of results) {
    const onnx = r.files['onnx/model.onnx'] ?? 0;
    const fp16 = r.files['onnx/model_fp16.onnx'] ?? 0;
    console.log(`${r.id}: ${r.status} (${r.dir}, onnx/model.onnx ${onnx} bytes, onnx/model_fp16.onnx ${fp16} bytes)`);
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
