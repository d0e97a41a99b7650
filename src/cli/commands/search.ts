import type { Command } from 'commander';
import { passageText } from '../../core/io/beir.ts';
import { InputError } from '../../core/io/errors.ts';
import { formatRunLines } from '../../core/io/trec.ts';
import { checkQrels, selectEvaluationQueries } from '../../core/io/validate.ts';
import { vectorRun } from '../../core/retrieve/vector-run.ts';
import { denseTopKOnnx, type OrtLike } from '../../encoders/dense-onnx.ts';
import { encodeWithCache, MemoryVectorCache } from '../../encoders/job.ts';
import { encodingIdentity, encodingKey, textKeys } from '../../encoders/identity.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { readVectorsFolder } from '../../node/vectors-file.ts';
import { parseIntFlag } from '../args.ts';
import { addModelOptions, batchPlanFor, loadEncoderFromOptions, progressPrinter, type ModelOpts } from '../model-options.ts';
import { reportDiagnostics, writeOutput, type Io } from '../output.ts';
import { MAX_DEPTH } from './bm25.ts';

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
    .option('--depth <n>', `documents per query, 1..${MAX_DEPTH}`, parseIntFlag('--depth', 1, MAX_DEPTH), MAX_DEPTH)
    .option('--vectors <dir>', 'passage vectors written by `fliplab encode` (must match the model settings and corpus)')
    .option('--tag <name>', 'run tag (default: the model id)')
    .option('--out <file>', 'write the run here instead of stdout')
    .action(async (dir: string, opts: SearchOpts) => {
      const { config, encoder } = await loadEncoderFromOptions(opts);
      const col = await loadBeirFolder(dir, opts.split);
      reportDiagnostics(io, [...col.warnings, ...checkQrels(col.qrels, col.files.qrels, { corpus: col.corpus, queries: col.queries })]);
      const selected = selectEvaluationQueries(col.qrels, col.queries);
      const cache = new MemoryVectorCache();
      const plan = batchPlanFor(opts);
      const started = performance.now();
      const texts = col.corpus.ids.map((_, i) => passageText(col.corpus, i));
      if (opts.vectors) {
        // Pre-encoded passages go into the cache under their own keys; anything that does not match is a miss.
        const folder = readVectorsFolder(opts.vectors);
        const identity = encodingIdentity(config, 'passage', encoder.dtype);
        const encoding = await encodingKey(identity);
        if (folder.manifest.encoding !== encoding) {
          throw new InputError(
            `${opts.vectors}/manifest.json`,
            undefined,
            `these vectors were made with ${JSON.stringify(folder.manifest.identity)}; this search uses ${JSON.stringify(identity)}`,
          );
        }
        const keys = await textKeys(texts);
        const known = new Set(keys);
        const usable = folder.textKeys.map((k, i) => ({ text: k, vector: folder.vectors[i]! })).filter((e) => known.has(e.text));
        await cache.put(identity, encoding, folder.manifest.device, usable);
        io.stderr(`vectors: ${usable.length} of ${texts.length} passages taken from ${opts.vectors}\n`);
      }
      const passages = await encodeWithCache(encoder, cache, texts, { role: 'passage', plan, onProgress: progressPrinter(io, 'passages') });
      const queryIds = selected.map((i) => col.queries.ids[i]!);
      const queries = await encodeWithCache(
        encoder,
        cache,
        selected.map((i) => col.queries.texts[i]!),
        { role: 'query', plan, onProgress: progressPrinter(io, 'queries') },
      );
      await encoder.dispose();
      const tag = opts.tag ?? config.id.replace(/[^\w.-]+/g, '_');
      const ortNode = await import('onnxruntime-node');
      const run = await vectorRun(col.corpus, passages, queryIds, queries, {
        depth: opts.depth,
        name: tag,
        denseSearch: (d, q, k) => denseTopKOnnx(ortNode as unknown as OrtLike, d, q, k),
      });
      writeOutput(io, Array.from(formatRunLines(run, tag)).join(''), opts.out);
      io.stderr(
        `search: ${config.model}@${config.revision} (${encoder.dtype}, ${encoder.device}, ${config.pooling}) — ` +
          `${queryIds.length} queries × top ${opts.depth} over ${col.corpus.ids.length} passages in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
    });
}
