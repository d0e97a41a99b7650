import type { Command } from 'commander';
import { passageText } from '../../core/io/beir.ts';
import { selectEvaluationQueries } from '../../core/io/validate.ts';
import { encodeWithCache, MemoryVectorCache } from '../../encoders/job.ts';
import { textKeys } from '../../encoders/identity.ts';
import type { PackPart } from '../../encoders/pack.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { addModelOptions, batchPlanFor, loadEncoderFromOptions, progressPrinter, type ModelOpts } from '../model-options.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';

interface EncodeOpts extends ModelOpts {
  role: string;
  queries: string;
  float16?: boolean;
  out: string;
}

const ROLES = ['both', 'passage', 'query'] as const;

export function registerEncode(program: Command, io: Io, _setExit: (code: number) => void, version: string): void {
  addModelOptions(
    program
      .command('encode')
      .description(
        'encode a BEIR corpus and its queries into a vector pack (e.g. on a GPU server) that the lab and `search` use with no model',
      )
      .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv'),
  )
    .option('--role <r>', `what to encode: ${ROLES.join(', ')} (passages and queries)`, 'both')
    .option('--queries <which>', "judged (the split's judged queries) or all (every query in queries.jsonl)", 'judged')
    .option('--float16', 'store the values as float16 (half the size; each value rounded to 11 significant bits)')
    .requiredOption('--out <pack>', 'vector pack to write: a folder, or one file when the name ends in .zip (see docs/vector-packs.md)')
    .action(async (dir: string, opts: EncodeOpts) => {
      if (!(ROLES as readonly string[]).includes(opts.role)) throw new UsageError(`--role expects ${ROLES.join(', ')}, got "${opts.role}"`);
      if (opts.queries !== 'judged' && opts.queries !== 'all')
        throw new UsageError(`--queries expects judged or all, got "${opts.queries}"`);
      // The pack writer (and its zip library) loads with the command, not with every CLI start.
      const [{ writePack }, { writePackPath }, { describeRun }] = await Promise.all([
        import('../../encoders/pack.ts'),
        import('../../node/vectors-file.ts'),
        import('../../encoders/runtime.ts'),
      ]);
      const { config, encoder } = await loadEncoderFromOptions(opts, io);
      const col = await loadBeirFolder(dir, opts.split);
      reportDiagnostics(io, col.warnings);
      const started = performance.now();
      const plan = batchPlanFor(opts);
      const part = async (role: 'passage' | 'query', rows: { id: string; text: string }[]): Promise<PackPart> => {
        const texts = rows.map((r) => r.text);
        const vectors = await encodeWithCache(encoder, new MemoryVectorCache(), texts, {
          role,
          plan,
          onProgress: progressPrinter(io, role === 'passage' ? 'passages' : 'queries'),
        });
        return { ids: rows.map((r) => r.id), textKeys: await textKeys(texts), vectors };
      };
      const queryIndices =
        opts.queries === 'all' ? col.queries.ids.map((_, i) => i) : selectEvaluationQueries(col.qrels, col.queries).map((i) => i as number);
      const passages =
        opts.role === 'query'
          ? null
          : await part(
              'passage',
              col.corpus.ids.map((id, i) => ({ id: id as string, text: passageText(col.corpus, i) })),
            );
      const queries =
        opts.role === 'passage'
          ? null
          : await part(
              'query',
              queryIndices.map((i) => ({ id: col.queries.ids[i] as string, text: col.queries.texts[i]! })),
            );
      await encoder.dispose();
      const files = await writePack({
        config,
        dtype: encoder.dtype,
        // Where and with what: the device, dtype and runtime versions (a pack's `device` is free text).
        device: describeRun({ device: encoder.device, dtype: encoder.dtype }),
        tool: `fliplab ${version}`,
        passages,
        queries,
        valueType: opts.float16 ? 'float16' : 'float32',
      });
      writePackPath(opts.out, files);
      const tokens = [...(passages?.vectors ?? []), ...(queries?.vectors ?? [])].reduce((s, v) => s + v.tokens, 0);
      const seconds = (performance.now() - started) / 1000;
      const counts = [passages ? `${passages.ids.length} passages` : '', queries ? `${queries.ids.length} queries` : '']
        .filter(Boolean)
        .join(' and ');
      io.stderr(
        `encode: ${counts}, ${tokens} tokens with ${config.model}@${config.revision} (${encoder.dtype}, ` +
          `${encoder.device}) in ${seconds.toFixed(1)} s (${(tokens / seconds).toFixed(0)} tokens/s) → ${opts.out}\n`,
      );
    });
}
