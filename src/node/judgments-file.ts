/**
 * The CLI's judgment cache: a JSON Lines file beside the model qrels (`<out>.judgments.jsonl`), one verdict per
 * line with its key, pair and judge. `judgeWithCache` reads it through `getMany` and appends each committed batch
 * with `putMany`, so an interrupted `fliplab judge` keeps every verdict made and the next run judges the rest.
 * Verdicts of other judges stay in the file (the key names the judge). A line that is not a verdict means the path
 * is some other file: refused, never overwritten.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { InputError } from '../core/io/errors.ts';
import type { JudgmentCache, JudgmentRecord } from '../encoders/judge-job.ts';

export class JudgmentsFile implements JudgmentCache {
  private constructor(
    readonly path: string,
    private readonly records: Map<string, JudgmentRecord>,
  ) {}

  static async open(path: string): Promise<JudgmentsFile> {
    const records = new Map<string, JudgmentRecord>();
    if (existsSync(path)) {
      (await readFile(path, 'utf8')).split('\n').forEach((text, i) => {
        if (text.trim() === '') return;
        let r: Partial<JudgmentRecord> | null = null;
        try {
          r = JSON.parse(text) as Partial<JudgmentRecord>;
        } catch {
          // reported below
        }
        if (r === null || typeof r.key !== 'string' || typeof r.score !== 'number' || typeof r.judge !== 'string')
          throw new InputError(path, i + 1, 'is not a verdict `fliplab judge` wrote (expected key, score and judge): choose another --out');
        records.set(r.key, r as JudgmentRecord);
      });
    }
    return new JudgmentsFile(path, records);
  }

  get size(): number {
    return this.records.size;
  }

  async getMany(keys: readonly string[]): Promise<ReadonlyMap<string, JudgmentRecord>> {
    const out = new Map<string, JudgmentRecord>();
    for (const k of keys) {
      const r = this.records.get(k);
      if (r !== undefined) out.set(k, r);
    }
    return out;
  }

  async putMany(records: readonly JudgmentRecord[]): Promise<void> {
    await appendFile(this.path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    for (const r of records) this.records.set(r.key, r);
  }
}
