import type { Command } from 'commander';
import { passageText } from '../../core/io/beir.ts';
import { InputError } from '../../core/io/errors.ts';
import { formatRunLines } from '../../core/io/trec.ts';
import { checkQrels, selectEvaluationQueries } from '../../core/io/validate.ts';
import { vectorRun } from '../../core/retrieve/vector-run.ts';
import { denseTopKOnnx, type OrtLike } from '../../encoders/dense-onnx.ts';
import type { LoadedEncoder } from '../../encoders/encoder.ts';
import { encodeWithCache, MemoryVectorCache, type LazyEncoder } from '../../encoders/job.ts';
import { encodingIdentity, encodingKey, textKeys } from '../../encoders/identity.ts';
import type { EncoderConfig } from '../../encoders/presets.ts';
import { loadBeirFolder } from '../../node/files.ts';
import type { VectorsFolder } from '../../node/vectors-file.ts';
import { parseIntFlag } from '../args.ts';
import {
  addModelOptions,
  batchPlanFor,
  checkDevice,
  loadConfiguredEncoder,
  progressPrinter,
  resolveEncoderConfig,
  type ModelOpts,
} from '../model-options.ts';
import { reportDiagnostics, UsageError, writeOutput, type Io } from '../output.ts';

const kebab = (flag: string) => flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
import { MAX_RANKS } from './bm25.ts';

interface SearchOpts extends ModelOpts {
  depth: number;
  vectors?: string;
  tag?: string;
  out?: string;
}

export function registerSearch(program: Command, io: Io, _setExit: (code: number) => void): void {
  addModelOptions(
    program
      .command('search')
      .description('encode a BEIR collection with BGE, E5, SPLADE or any ONNX model and write an exact-search TREC run')
      .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv'),
  )
    .option('--depth <n>', `documents per query, 1..${MAX_RANKS}`, parseIntFlag('--depth', 1, MAX_RANKS), MAX_RANKS)
    .option(
      '--vectors <pack>',
      'a vector pack from `fliplab encode` or the lab (folder or .zip): ranks with no model when it holds every passage and query',
    )
    .option('--tag <name>', 'run tag (default: the model id)')
    .option('--out <file>', 'write the run here instead of stdout')
    .action(async (dir: string, opts: SearchOpts) => {
      checkDevice(opts);
      const col = await loadBeirFolder(dir, opts.split);
      reportDiagnostics(io, [...col.warnings, ...checkQrels(col.qrels, col.files.qrels, { corpus: col.corpus, queries: col.queries })]);
      const selected = selectEvaluationQueries(col.qrels, col.queries);
      const cache = new MemoryVectorCache();
      const plan = batchPlanFor(opts);
      const started = performance.now();
      const texts = col.corpus.ids.map((_, i) => passageText(col.corpus, i));
      const queryTexts = selected.map((i) => col.queries.texts[i]!);
      let config: EncoderConfig;
      // Packs (and their zip library) load only when --vectors asks, not with every CLI start.
      const packs = opts.vectors ? await import('../../encoders/pack.ts') : null;
      const folders = opts.vectors ? await import('../../node/vectors-file.ts') : null;
      if (opts.vectors && packs && folders && !folders.isVersion1Folder(opts.vectors)) {
        const { MANIFEST, matchPack, packConfig, packIdentity, readPack, recipeDifference } = packs;
        const { readPackPath } = folders;
        // A pack says its own recipe: --model is needed only to check it, or to encode what the pack lacks.
        const pack = await readPack(readPackPath(opts.vectors), opts.vectors);
        config = packConfig(pack.manifest.encoder);
        const recipeFlags = (['dtype', 'pooling', 'queryPrefix', 'passagePrefix', 'maxLength', 'sparseTopK'] as const).filter(
          (f) => opts[f] !== undefined,
        );
        if (opts.model === undefined && recipeFlags.length > 0) {
          throw new UsageError(
            `the pack says how its vectors were made; give --model too if --${recipeFlags.map(kebab).join(', --')} ` +
              'should be checked against it',
          );
        }
        if (opts.model !== undefined) {
          const given = resolveEncoderConfig(opts);
          const diff = recipeDifference(pack.manifest.encoder, given);
          if (diff !== '') throw new InputError(`${opts.vectors}/${MANIFEST}`, undefined, `the pack was made with other settings: ${diff}`);
          config = given;
        }
        const target = {
          passages: { ids: col.corpus.ids as readonly string[], textKeys: await textKeys(texts) },
          queries: { ids: col.queries.ids as readonly string[], textKeys: await textKeys(col.queries.texts) },
          evaluated: selected.map((i) => col.queries.ids[i] as string),
        };
        const covered = matchPack(pack, target, opts.vectors);
        for (const [role, part] of [
          ['passage', pack.passages],
          ['query', pack.queries],
        ] as const) {
          if (!part) continue;
          const identity = packIdentity(pack.manifest.encoder, role);
          await cache.put(
            identity,
            await encodingKey(identity),
            pack.manifest.device,
            part.textKeys.map((text, i) => ({ text, vector: part.vectors[i]! })),
          );
        }
        io.stderr(
          `vectors: ${covered.passages} of ${texts.length} passages and ${covered.queries} of ${queryTexts.length} queries taken from ` +
            `${opts.vectors} (${config.model}@${config.revision}, ${config.dtype}, encoded on ${pack.manifest.device})\n`,
        );
      } else {
        config = resolveEncoderConfig(opts);
        if (opts.vectors && folders) await takeVersion1(folders.readVectorsFolder(opts.vectors), opts.vectors, config, texts, cache, io);
      }
      // The model loads only if the cache (the pack) lacks a passage or a query.
      let loaded: LoadedEncoder | null = null;
      const encoder: LazyEncoder = {
        config,
        dtype: config.dtype,
        load: async () => (loaded = await loadConfiguredEncoder(config, opts, io)),
      };
      const passages = await encodeWithCache(encoder, cache, texts, { role: 'passage', plan, onProgress: progressPrinter(io, 'passages') });
      const queryIds = selected.map((i) => col.queries.ids[i]!);
      const queries = await encodeWithCache(encoder, cache, queryTexts, {
        role: 'query',
        plan,
        onProgress: progressPrinter(io, 'queries'),
      });
      const used = loaded as LoadedEncoder | null;
      await used?.dispose();
      const tag = opts.tag ?? config.id.replace(/[^\w.-]+/g, '_');
      const ortNode = await import('onnxruntime-node');
      const run = await vectorRun(col.corpus, passages, queryIds, queries, {
        depth: opts.depth,
        name: tag,
        denseSearch: (d, q, k) => denseTopKOnnx(ortNode as unknown as OrtLike, d, q, k),
      });
      writeOutput(io, Array.from(formatRunLines(run, tag)).join(''), opts.out);
      io.stderr(
        `search: ${config.model}@${config.revision} (${encoder.dtype}, ${used ? used.device : 'no model loaded'}, ${config.pooling}) — ` +
          `${queryIds.length} queries × top ${opts.depth} over ${col.corpus.ids.length} passages in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
    });
}

/** A version 1 vectors folder (passages only, no recipe of its own): must match the flags' settings. */
async function takeVersion1(
  folder: VectorsFolder,
  dir: string,
  config: EncoderConfig,
  texts: readonly string[],
  cache: MemoryVectorCache,
  io: Io,
) {
  const identity = encodingIdentity(config, 'passage');
  const encoding = await encodingKey(identity);
  if (folder.manifest.encoding !== encoding) {
    throw new InputError(
      `${dir}/manifest.json`,
      undefined,
      `these vectors were made with ${JSON.stringify(folder.manifest.identity)}; this search uses ${JSON.stringify(identity)}`,
    );
  }
  const known = new Set(await textKeys(texts));
  const usable = folder.textKeys.map((k, i) => ({ text: k, vector: folder.vectors[i]! })).filter((e) => known.has(e.text));
  await cache.put(identity, encoding, folder.manifest.device, usable);
  io.stderr(`vectors: ${usable.length} of ${texts.length} passages taken from ${dir}\n`);
}
