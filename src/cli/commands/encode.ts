import type { Command } from 'commander';
import { passageText } from '../../core/io/beir.ts';
import { selectEvaluationQueries } from '../../core/io/validate.ts';
import { encodeWithCache, MemoryVectorCache } from '../../encoders/job.ts';
import { encodingIdentity, encodingKey, textKeys } from '../../encoders/identity.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { writeVectorsFolder } from '../../node/vectors-file.ts';
import { addModelOptions, batchPlanFor, loadEncoderFromOptions, progressPrinter, type ModelOpts } from '../model-options.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';

interface EncodeOpts extends ModelOpts {
  role: string;
  out: string;
}

export function registerEncode(program: Command, io: Io, _setExit: (code: number) => void): void {
  addModelOptions(
    program
      .command('encode')
      .description('encode a BEIR corpus (or its queries) into a portable vectors folder, e.g. on a GPU server')
      .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv'),
  )
    .option('--role <r>', "passage (the corpus) or query (the split's judged queries)", 'passage')
    .requiredOption('--out <dir>', 'vectors folder to write (manifest.json, rows.tsv, vectors.f32 | vectors.jsonl)')
    .action(async (dir: string, opts: EncodeOpts) => {
      if (opts.role !== 'passage' && opts.role !== 'query') throw new UsageError(`--role expects passage or query, got "${opts.role}"`);
      const role = opts.role;
      const { config, encoder } = await loadEncoderFromOptions(opts);
      const col = await loadBeirFolder(dir, opts.split);
      reportDiagnostics(io, col.warnings);
      const rows =
        role === 'passage'
          ? col.corpus.ids.map((id, i) => ({ id: id as string, text: passageText(col.corpus, i) }))
          : selectEvaluationQueries(col.qrels, col.queries).map((i) => ({ id: col.queries.ids[i] as string, text: col.queries.texts[i]! }));
      const started = performance.now();
      const texts = rows.map((r) => r.text);
      const vectors = await encodeWithCache(encoder, new MemoryVectorCache(), texts, {
        role,
        plan: batchPlanFor(opts),
        onProgress: progressPrinter(io, role === 'passage' ? 'passages' : 'queries'),
      });
      await encoder.dispose();
      const identity = encodingIdentity(config, role, encoder.dtype);
      writeVectorsFolder(opts.out, {
        manifest: { identity, encoding: await encodingKey(identity), device: encoder.device },
        ids: rows.map((r) => r.id),
        textKeys: await textKeys(texts),
        vectors,
      });
      const tokens = vectors.reduce((s, v) => s + v.tokens, 0);
      const seconds = (performance.now() - started) / 1000;
      io.stderr(
        `encode: ${rows.length} ${role}s, ${tokens} tokens with ${config.model}@${config.revision} (${encoder.dtype}, ` +
          `${encoder.device}) in ${seconds.toFixed(1)} s (${(tokens / seconds).toFixed(0)} tokens/s) → ${opts.out}\n`,
      );
    });
}
