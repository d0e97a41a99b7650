/**
 * A models root in the hub's layouts, built from the generated tiny fixtures, for the local hub server:
 * repos as transformers.js lays them out (`onnx/model.onnx`), repos with the weights at the root (as several
 * public SPLADE conversions are: `Qdrant/Splade_PP_en_v1` itself is served here from the tiny SPLADE), the
 * paper's SPLADE repo as published (config and tokenizer, no ONNX), and broken repos.
 */
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_MODELS_DIR, makeReaderFixtures } from '../../scripts/models/make-fixtures.ts';

const TOKENIZER = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt'];

export const LAYOUT_REPOS = {
  /** The fixtures as generated (onnx/ layout). */
  bert: 'fliplab/tiny-bert',
  splade: 'fliplab/tiny-splade',
  /** The same weights with model.onnx at the repo's root. */
  bertRoot: 'fliplab/tiny-bert-root',
  spladeRoot: 'fliplab/tiny-splade-root',
  /** The `splade-pp` preset's repo, laid out like the real one (root model.onnx), holding the tiny SPLADE. */
  spladePreset: 'Qdrant/Splade_PP_en_v1',
  /** The paper's SPLADE checkpoint as naver publishes it: config and tokenizer, PyTorch weights only. */
  naver: 'naver/splade-cocondenser-ensembledistil',
  /** The dense presets' repos (onnx/ layout with fp32, fp16 and q8 weights), each holding the tiny BERT. */
  densePresets: ['Xenova/bge-large-en-v1.5', 'Xenova/e5-large-v2', 'Xenova/bge-small-en-v1.5', 'Xenova/e5-small-v2'],
  /** The generated decoder (reader), with and without a chat template. */
  reader: 'fliplab/tiny-gpt2',
  readerBase: 'fliplab/tiny-gpt2-base',
  /** The generated decoder with model.onnx at the repo's root. */
  readerRoot: 'fliplab/tiny-gpt2-root',
  noOnnx: 'fliplab/no-onnx',
  noTokenizer: 'fliplab/no-tokenizer',
} as const;

async function copyFiles(from: string, to: string, files: readonly [string, string][]): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const [src, dst] of files) {
    await mkdir(join(to, dst, '..'), { recursive: true });
    await cp(join(from, src), join(to, dst));
  }
}

/** Write the layouts under `root` (replacing what is there). Call after makeModelFixtures() (the readers are made here). */
export async function writeHubLayouts(root: string): Promise<string> {
  await rm(root, { recursive: true, force: true });
  await makeReaderFixtures();
  const fixture = (id: string) => join(DEFAULT_MODELS_DIR, id);
  const same = (names: readonly string[]) => names.map((n) => [n, n] as [string, string]);
  for (const id of [LAYOUT_REPOS.bert, LAYOUT_REPOS.splade, LAYOUT_REPOS.reader, LAYOUT_REPOS.readerBase])
    await cp(fixture(id), join(root, id), { recursive: true });
  for (const id of LAYOUT_REPOS.densePresets) await cp(fixture(LAYOUT_REPOS.bert), join(root, id), { recursive: true });
  const rootLayout = [...same(TOKENIZER), ['onnx/model.onnx', 'model.onnx']] as [string, string][];
  await copyFiles(fixture(LAYOUT_REPOS.bert), join(root, LAYOUT_REPOS.bertRoot), rootLayout);
  await copyFiles(fixture(LAYOUT_REPOS.splade), join(root, LAYOUT_REPOS.spladeRoot), rootLayout);
  await copyFiles(fixture(LAYOUT_REPOS.splade), join(root, LAYOUT_REPOS.spladePreset), rootLayout);
  const readerFiles = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'];
  await copyFiles(fixture(LAYOUT_REPOS.reader), join(root, LAYOUT_REPOS.readerRoot), [
    ...same(readerFiles),
    ['onnx/model.onnx', 'model.onnx'],
  ]);
  await copyFiles(fixture(LAYOUT_REPOS.splade), join(root, LAYOUT_REPOS.naver), same(TOKENIZER));
  await copyFiles(fixture(LAYOUT_REPOS.bert), join(root, LAYOUT_REPOS.noOnnx), same(TOKENIZER));
  await copyFiles(fixture(LAYOUT_REPOS.bert), join(root, LAYOUT_REPOS.noTokenizer), [
    ['config.json', 'config.json'],
    ['onnx/model.onnx', 'onnx/model.onnx'],
  ]);
  return root;
}
