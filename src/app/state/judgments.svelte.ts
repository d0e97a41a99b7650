/**
 * The judgments a user adds in the lab: a layer over the open collection's qrels (core/io/judgments.ts), kept
 * per collection in IndexedDB (store/judgments.ts), applied in the lab worker so every number — measures,
 * flips, the explorer's grades — recomputes as each judgment lands. The collection's qrels never change.
 *
 * Also the "next hole" queue: the unjudged passages of the broken queries (in the candidate's top k), then of
 * the fixed ones (in the reference's top k), in the explorer's order — the places where a judgment can turn a
 * flip that a hole explains into a real one or none.
 */
import {
  formatJudgmentsJsonl,
  formatJudgmentsQrels,
  judgmentsToQrels,
  mergeQrels,
  type Judgment,
  type JudgmentConflict,
} from '../../core/io/judgments.ts';
import { asDocId, asQueryId } from '../../core/io/ids.ts';
import { countOf } from '../../core/count.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import { applyEdits, JudgmentStore, judgmentsOfPairs, latestGrades, pairKey, pairsOf, type JudgmentEdit } from '../../store/judgments.ts';
import { tabChannel, type TabChannel } from './tabs.ts';
import { withStore } from '../../store/with-store.ts';
import { errorInfo, errorText } from './errors.ts';
import type { Lab } from './lab.svelte.ts';

/** The layer as the lab keeps it (IndexedDB; component tests pass their own). */
export type JudgmentsAccess = <T>(use: (store: Pick<JudgmentStore, 'get' | 'update'>) => Promise<T>) => Promise<T>;

const indexedDbJudgments: JudgmentsAccess = (use) => withStore(() => JudgmentStore.open(), use);

const ASSESSOR_KEY = 'fliplab.assessor';

/** One unjudged passage to look at: query, the run whose top k holds it, the passage. */
export interface Hole {
  readonly qid: string;
  readonly run: string;
  readonly docId: string;
}

/** A grade in words, as TREC's graded collections name them (0 not relevant … 3 perfectly relevant). */
export function gradeName(grade: number): string {
  return ['not relevant', 'relevant', 'highly relevant', 'perfectly relevant'][grade] ?? `grade ${grade}`;
}

export class Judgments {
  /** The layer of the open collection, in the order judged (a pair judged twice: the later one counts). */
  list: readonly Judgment[] = $state.raw([]);
  /** Who judges (stored in this browser; written into each judgment and the JSONL export). */
  assessor = $state('');
  /** Grades the collection uses (0 and 1 at least), for the judging buttons. */
  grades: readonly number[] = $state.raw([0, 1]);
  /** Unjudged passages of broken, then fixed queries at the explorer's k and candidate. */
  holes: readonly Hole[] = $state.raw([]);
  /** What the last import did, or why it failed. */
  importNote: string | null = $state(null);
  importError: string | null = $state(null);
  /** Pairs the last import graded differently from what was there (the imported grade won). */
  conflicts: readonly JudgmentConflict[] = $state.raw([]);
  error: string | null = $state(null);
  /** Passages judged (distinct pairs). */
  count = $derived(distinctPairs(this.list));
  /** The last grade of each judged pair, by pairKey. */
  #latest = $derived(latestGrades(this.list));

  /** The user's grade of a passage in the layer shown now (undefined: not judged by the user). */
  gradeOf(qid: string, docId: string): number | undefined {
    return this.#latest.get(pairKey(qid, docId));
  }

  readonly #lab: Lab;
  readonly #access: JudgmentsAccess;
  readonly #stop: () => void;
  /** For undo (this session only): the edits that take back each change, last change last. */
  #undo: (readonly JudgmentEdit[])[] = [];
  /** Edits shown already and not yet stored: applied again over what the store gives back. */
  #pending: (readonly JudgmentEdit[])[] = [];
  /** This tab's writes, one after another (each reads the layer the previous one left). */
  #writes: Promise<void> = Promise.resolve();
  #restoredFor: string | null = null;
  readonly #tabs: TabChannel;

  constructor(lab: Lab, access: JudgmentsAccess = indexedDbJudgments) {
    this.#lab = lab;
    this.#access = access;
    try {
      this.assessor = globalThis.localStorage?.getItem(ASSESSOR_KEY) ?? '';
    } catch {
      // no storage: the assessor is asked again next time
    }
    // Another tab changed this collection's layer: read it back (the writer stored it before telling).
    this.#tabs = tabChannel((m) => {
      if (m.kind === 'judgments' && m.collectionId === lab.collectionId) void this.#reload(m.collectionId);
    });
    this.#stop = $effect.root(() => {
      // A newly opened collection: its kept layer comes back (and is applied) before anything is judged.
      $effect(() => {
        const id = lab.collectionId;
        const judged = lab.collection?.judged === true;
        if (id === null || !judged || id === this.#restoredFor) return;
        this.#restoredFor = id;
        void this.#restore(id);
      });
      // The queue follows the report (which follows every judgment), the explorer's candidate and k.
      $effect(() => {
        const report = lab.report;
        const k = lab.view.k;
        const wanted = lab.view.candidate;
        if (report === null || report.per_query === undefined) {
          this.holes = [];
          return;
        }
        const di = report.depth_list.indexOf(k);
        const reference = report.runs.find((r) => r.role === 'reference')?.name;
        const candidates = report.runs.filter((r) => r.role === 'candidate').map((r) => r.name);
        const candidate = wanted !== null && candidates.includes(wanted) ? wanted : candidates[0];
        if (di < 0 || reference === undefined || candidate === undefined) {
          this.holes = [];
          return;
        }
        const broken: { qid: string; run: string }[] = [];
        const fixed: { qid: string; run: string }[] = [];
        for (const row of report.per_query) {
          const state = row.candidates.find((c) => c.name === candidate)?.states[di];
          if (state === 'broken') broken.push({ qid: row.qid, run: candidate });
          else if (state === 'fixed') fixed.push({ qid: row.qid, run: reference });
        }
        let stale = false;
        lab.lab.holes([...broken, ...fixed], k).then(
          (holes) => {
            if (!stale) this.holes = holes;
          },
          () => undefined,
        );
        return () => {
          stale = true;
        };
      });
    });
  }

  async #restore(id: string): Promise<void> {
    try {
      const [kept, grades] = await Promise.all([this.#access((s) => s.get(id)), this.#lab.lab.grades()]);
      if (this.#lab.collectionId !== id) return;
      this.grades = grades;
      this.#undo = [];
      this.list = kept;
      if (kept.length > 0) await this.#lab.setJudgments(kept);
      this.error = null;
    } catch (e) {
      this.error = `Could not restore the judgments kept for this collection: ${errorText(errorInfo(e))}`;
    }
  }

  /** The layer as stored now (another tab wrote it), with this tab's edits still on their way over it. */
  async #reload(id: string): Promise<void> {
    try {
      const stored = await this.#access((s) => s.get(id));
      if (this.#lab.collectionId !== id) return;
      await this.#show(applyEdits(stored, this.#pending.flat()));
    } catch (e) {
      this.error = `Could not read the judgments another tab added: ${errorText(errorInfo(e))}`;
    }
  }

  /** Show a layer and have every number recompute with it (nothing when it is the one shown). */
  async #show(layer: readonly Judgment[]): Promise<void> {
    if (sameLayer(layer, this.list)) return;
    this.list = layer;
    await this.#lab.setJudgments(layer);
  }

  setAssessor(name: string): void {
    this.assessor = name.trim();
    try {
      globalThis.localStorage?.setItem(ASSESSOR_KEY, this.assessor);
    } catch {
      // kept for this session only
    }
  }

  /** Judge one passage of one query (the analysis recomputes, the layer is kept). */
  async judge(qid: string, docId: string, grade: number): Promise<void> {
    const j: Judgment = {
      qid: asQueryId(qid),
      docid: asDocId(docId),
      grade,
      ...(this.assessor === '' ? {} : { assessor: this.assessor }),
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a timestamp, not state
      time: new Date().toISOString(),
    };
    await this.#edit([{ add: [j] }], this.#inverse([[j.qid, j.docid]]));
  }

  /** The judgments of these pairs in the layer shown, in order. */
  #judgmentsOf(pairs: readonly (readonly [string, string])[]): Judgment[] {
    return judgmentsOfPairs(this.list, pairs);
  }

  /** The edits that bring these pairs back to what they are now. */
  #inverse(pairs: readonly (readonly [string, string])[]): JudgmentEdit[] {
    return [{ drop: pairs }, { add: this.#judgmentsOf(pairs) }];
  }

  /**
   * Take back the last change of this session (a judgment, an import, a clear); after a reload, the last
   * judgment kept.
   */
  async undo(): Promise<void> {
    let edits = this.#undo.pop();
    const last = this.list.at(-1);
    if (edits === undefined && last !== undefined) {
      // after a reload: the last judgment kept goes, its pair's earlier judgments stay
      const pair = [last.qid, last.docid] as const;
      edits = [{ drop: [pair] }, { add: this.#judgmentsOf([pair]).slice(0, -1) }];
    }
    if (edits !== undefined) await this.#edit(edits, null);
  }

  get canUndo(): boolean {
    return this.list.length > 0 || this.#undo.length > 0;
  }

  /** Forget every added judgment of this collection (undo brings them back during this session). */
  async clear(): Promise<void> {
    // the pairs this tab shows (another tab's judgment that has not reached it yet is not cleared unseen)
    const pairs = pairsOf(this.list);
    await this.#edit([{ drop: pairs }], [{ add: this.list }]);
  }

  /** Remove every judgment of one pair. */
  async remove(qid: string, docId: string): Promise<void> {
    await this.#edit([{ drop: [[qid, docId]] }], [{ add: this.#judgmentsOf([[qid, docId]]) }]);
  }

  /**
   * Add judgments from files (TREC qrels or fliplab JSONL), in the order given: a later file wins per
   * (query, passage), over what was already added too; disagreements are listed.
   */
  async importFiles(files: readonly CollectionFile[]): Promise<void> {
    this.importError = null;
    this.importNote = null;
    try {
      const sources: { name: string; judgments: readonly Judgment[] }[] = [{ name: 'already added', judgments: this.list }];
      for (const f of files) sources.push({ name: f.path, judgments: await this.#lab.lab.parseJudgmentsFile(f) });
      const merged = mergeQrels(sources.map((s) => ({ name: s.name, qrels: judgmentsToQrels(s.judgments) })));
      this.conflicts = merged.conflicts;
      const imported = sources.slice(1).flatMap((s) => s.judgments);
      const pairs = pairsOf(imported);
      await this.#edit([{ add: imported }], this.#inverse(pairs));
      const files_ = files.map((f) => f.path).join(', ');
      this.importNote =
        `Imported ${countOf(imported.length, 'judgment')} from ${files_}` +
        (merged.conflicts.length > 0
          ? `; ${merged.conflicts.length} graded differently before (the later grade counts, listed below).`
          : '.');
    } catch (e) {
      this.importError = errorText(errorInfo(e));
    }
  }

  /** The added judgments as TREC qrels (`qid 0 docid grade`, the last grade of each pair). */
  qrelsText(): string {
    return formatJudgmentsQrels(this.list);
  }

  /** Every added judgment with who and when, as JSON Lines. */
  jsonlText(collection?: string): string {
    return formatJudgmentsJsonl(this.list, collection);
  }

  /**
   * Change the layer: shown at once, then applied to the layer as stored (store/judgments.ts `update`: other
   * tabs' judgments stay), then the other tabs are told. `undo`: the edits that take this change back.
   */
  async #edit(edits: readonly JudgmentEdit[], undo: readonly JudgmentEdit[] | null): Promise<void> {
    const id = this.#lab.collectionId;
    if (id === null) return;
    if (undo !== null) this.#undo.push(undo);
    this.#pending.push(edits);
    const shown = this.#show(applyEdits(this.list, edits));
    const write = this.#writes.then(async () => {
      try {
        const stored = await this.#access((s) => s.update(id, edits));
        this.#pending.splice(this.#pending.indexOf(edits), 1);
        if (this.#lab.collectionId !== id) return;
        await shown;
        await this.#show(applyEdits(stored, this.#pending.flat()));
        this.#tabs.post({ kind: 'judgments', collectionId: id });
        this.error = null;
      } catch (e) {
        this.#pending.splice(this.#pending.indexOf(edits), 1);
        this.error = `Could not keep the judgments: ${errorText(errorInfo(e))}`;
      }
    });
    this.#writes = write;
    await write;
  }

  dispose(): void {
    this.#stop();
    this.#tabs.close();
  }
}

/** Same judgments in the same order (a layer another tab wrote may be the one shown already). */
function sameLayer(a: readonly Judgment[], b: readonly Judgment[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((j, i) => {
    const k = b[i]!;
    return j.qid === k.qid && j.docid === k.docid && j.grade === k.grade && j.time === k.time && j.assessor === k.assessor;
  });
}

function distinctPairs(list: readonly Judgment[]): number {
  let n = 0;
  for (const m of judgmentsToQrels(list).byQuery.values()) n += m.size;
  return n;
}
