/**
 * Make queries for documents that have none (Svelte 5 runes): the lab worker draws a stratified sample of
 * passages (core/judging/synthetic.ts), a reader in an encode worker of its own writes one query for each, cache
 * first (the reader's answers store: a second try or a reload writes nothing twice; Cancel keeps what was
 * written), and the user edits, deletes, types or imports queries before using them. *Use these queries* adds
 * the queries, the source passages' judgments and the provenance to the documents as files, so the lab opens,
 * stores and exports the result as any collection. Until then the list is kept as a draft in this browser, per set
 * of documents: a reload (or picking the same folder again) brings back every edit, deletion and typed query.
 */
import { templateName, type ReaderTemplate } from '../../core/answers/prompt.ts';
import {
  checkWriterPrompt,
  cleanQuery,
  DEFAULT_QUERY_COUNT,
  editedWriter,
  QUERY_WRITER,
  SYNTHETIC_QUERIES_FILE,
  syntheticFiles,
  writerTasks,
  writerName,
  type MadeQuery,
  type QueryOrigin,
  type WriterPassage,
} from '../../core/judging/synthetic.ts';
import { READER_PRESETS, type ReaderConfig } from '../../encoders/reader-presets.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import { fileSize, normalizePath } from '../../lab/data/bytes.ts';
import { fnv1a } from '../../core/fnv.ts';
import type { QuerySample } from '../../worker/api.ts';
import type { AnswerProgress, EncodeBridge } from '../bridge/encode-bridge.ts';
import type { Collections } from './collections.svelte.ts';
import { errorInfo, errorText } from './errors.ts';
import type { Lab } from './lab.svelte.ts';

/** The most passages one draw may ask for (each becomes a row of the page and a prompt for the reader). */
export const MAX_QUERY_COUNT = 2000;

/** One query in the list: what it says now, and where it came from. */
export interface QueryRow {
  /** Stable within the list (rows come and go). */
  readonly key: number;
  readonly text: string;
  /** What the reader wrote (null: typed or imported, or not written yet). */
  readonly written: string | null;
  /** The passage it is written from (null: typed or imported). */
  readonly passage: WriterPassage | null;
  readonly origin: QueryOrigin;
  /** The reader and prompt that wrote it (writerName), once written. */
  readonly writer?: string;
  /** The reader wrote nothing usable, or refused the passage: why. */
  readonly problem?: string;
}

/** The reader presets, for the chooser. */
export const WRITERS: readonly ReaderConfig[] = Object.values(READER_PRESETS);

const encoder = new TextEncoder();

/** The draft of a set of documents: what the list holds, kept in localStorage until the queries are used. */
interface Draft {
  readonly count: number;
  readonly promptText: string;
  readonly sample: QuerySample | null;
  readonly sampled: number | null;
  readonly rows: readonly Omit<QueryRow, 'key'>[];
  readonly deleted: number;
  readonly deletedIds?: readonly string[];
  readonly writer: { readonly reader: ReaderConfig; readonly template: ReaderTemplate } | null;
}

/**
 * A set of documents, by name and a hash of every file's path and size: the same folder picked again has the same
 * key; a file added, removed, renamed or resized gives another.
 */
function draftKey(name: string, files: readonly CollectionFile[]): string {
  const listing = files
    .map((f) => `${normalizePath(f.path)}\u0000${fileSize(f)}`)
    .sort()
    .join('\n');
  return `fliplab.make-queries.${name}.${(fnv1a(new TextEncoder().encode(listing)) >>> 0).toString(16)}`;
}
const textFile = (path: string, text: string): CollectionFile => ({ path, bytes: encoder.encode(text) });

export class QueryMaker {
  /** The documents queries are made for (null: the panel is not offered). */
  files: readonly CollectionFile[] | null = $state.raw(null);
  name = $state('');
  count = $state(DEFAULT_QUERY_COUNT);
  readonly seed = 1;
  readerId: string = $state('qwen2.5-0.5b');
  /** The writer's prompt (user turn) as shown and edited. */
  promptText = $state(QUERY_WRITER.user);
  sample: QuerySample | null = $state.raw(null);
  rows: QueryRow[] = $state([]);
  /** Written queries the user deleted (said in the provenance). */
  deleted = $state(0);
  status: 'idle' | 'sampling' | 'writing' | 'opening' = $state('idle');
  progress: AnswerProgress | null = $state.raw(null);
  download: { readonly file: string; readonly loaded: number; readonly total: number } | null = $state.raw(null);
  error: string | null = $state(null);
  readonly promptProblem = $derived(checkWriterPrompt(this.promptText));

  readonly #lab: Lab;
  readonly #collections: Collections;
  readonly #bridge: EncodeBridge;
  #abort: AbortController | null = null;
  #nextKey = 0;
  /** Passages whose query the user deleted: a new draw leaves them out. */
  #deletedIds: string[] = [];
  /** The count the sample was drawn for. */
  #sampled: number | null = null;
  /** What the rows were written with (the provenance's reader and prompt). */
  #usedWriter: { readonly reader: ReaderConfig; readonly template: ReaderTemplate } | null = null;

  constructor(lab: Lab, collections: Collections, bridge: EncodeBridge) {
    this.#lab = lab;
    this.#collections = collections;
    this.#bridge = bridge;
  }

  /** Offer to make queries for these documents (a collection refused for having none). */
  offer(files: readonly CollectionFile[], name: string): void {
    if (this.files === files) return;
    this.cancel();
    this.files = files;
    this.name = name;
    this.sample = null;
    this.#sampled = null;
    this.rows = [];
    this.deleted = 0;
    this.#deletedIds = [];
    this.error = null;
    this.#usedWriter = null;
    this.#restore();
  }

  /** Stop offering (another collection opened). */
  close(): void {
    this.cancel();
    this.files = null;
  }

  get reader(): ReaderConfig {
    return WRITERS.find((r) => r.id === this.readerId) ?? READER_PRESETS['qwen2.5-0.5b'];
  }

  get writer(): ReaderTemplate {
    return editedWriter(QUERY_WRITER, this.promptText);
  }

  /**
   * Draw the sample (again when the count changed) and have the reader write a query for each passage that has
   * none yet; rows appear at once and fill as queries arrive.
   */
  async write(): Promise<void> {
    const files = this.files;
    if (files === null || this.promptProblem !== null || this.status !== 'idle') return;
    this.error = null;
    const count = Math.floor(Number(this.count));
    if (!Number.isFinite(count) || count < 1 || count > MAX_QUERY_COUNT) {
      this.error = `Passages to sample: give a whole number from 1 to ${MAX_QUERY_COUNT.toLocaleString('en-US')}.`;
      return;
    }
    const abort = new AbortController();
    this.#abort = abort;
    /** Another folder offered meanwhile: this job's answers are not for it. */
    const stale = () => this.files !== files;
    try {
      // Another count draws the sample again. A passage drawn again keeps its row as it was (written, edited or
      // deleted); written queries come back from the cache; typed and imported ones stay.
      if (this.sample === null || this.#sampled !== count) {
        this.status = 'sampling';
        const sample = await this.#lab.lab.sampleForQueries(files, { name: this.name, n: count, seed: this.seed });
        if (stale()) return;
        this.sample = sample;
        this.#sampled = count;
        if (sample.passages.length === 0)
          this.error =
            `No passage of ${this.name} has 5 words or more (${sample.docs} in all): there is nothing to write a query for. ` +
            'Type or import queries instead.';
        // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this draw, never rendered
        const before = new Map(this.rows.filter((r) => r.passage !== null).map((r) => [r.passage!.id, r]));
        const drawn = sample.passages
          .filter((p) => !this.#deletedIds.includes(p.id))
          .map((p) => before.get(p.id) ?? this.#row({ text: '', written: null, passage: p, origin: 'reader' }));
        this.rows = [...drawn, ...this.rows.filter((r) => r.passage === null)];
      }
      const todo = this.rows.filter((r) => r.passage !== null && r.written === null);
      if (todo.length === 0 || abort.signal.aborted) return;
      this.status = 'writing';
      const reader = { ...this.reader };
      const writer = this.writer;
      this.#usedWriter = { reader, template: writer };
      // Plain data for the callbacks of this job: not state.
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      const byPassage = new Map(todo.map((r) => [r.passage!.id, r.key]));
      if (stale()) return;
      const result = await this.#bridge.answerQuestions(
        {
          reader,
          load: {
            device: this.#lab.settings.device === 'wasm' ? 'wasm' : 'webgpu',
            source: { remoteHost: `${this.#lab.settings.modelHost}/`, allowRemote: true },
            avoidSoftwareAdapter: this.#lab.settings.device === 'auto',
          },
          template: writer,
          k: 1,
          tasks: writerTasks(
            writer,
            todo.map((r) => r.passage!),
          ),
        },
        (p) => (this.progress = p),
        (passageId, reply) => {
          if (stale()) return;
          const key = byPassage.get(passageId);
          const query = cleanQuery(reply);
          this.#update(key, (r) => ({
            ...r,
            written: query,
            writer: writerName(reader, writer),
            text: r.text === '' ? query : r.text,
            ...(query === '' ? { problem: `the reader wrote no query (its reply: ${JSON.stringify(reply.slice(0, 80))})` } : {}),
          }));
        },
        abort.signal,
        (event) => {
          if (event.kind === 'download') this.download = event;
        },
      );
      if (stale()) return;
      for (const r of result.refused) this.#update(byPassage.get(r.queryId), (row) => ({ ...row, written: '', problem: r.reason }));
    } catch (e) {
      if (!abort.signal.aborted && !stale()) this.error = errorText(errorInfo(e));
    } finally {
      if (!stale()) this.#save();
      if (this.#abort === abort) this.#abort = null;
      this.status = 'idle';
      this.progress = null;
      this.download = null;
    }
  }

  cancel(): void {
    this.#abort?.abort();
  }

  /** Change a query's text: a written query changed by hand becomes `edited` (back to `reader` if restored). */
  edit(key: number, text: string): void {
    this.#update(key, (r) => ({
      ...r,
      text,
      // A passage's row typed into before the reader wrote it is the user's query for that passage: edited.
      origin: r.passage === null ? r.origin : r.written !== null && text.trim() === r.written ? 'reader' : 'edited',
    }));
    this.#save();
  }

  remove(key: number): void {
    const row = this.rows.find((r) => r.key === key);
    if (row === undefined) return;
    if (row.passage !== null) {
      this.deleted++;
      this.#deletedIds.push(row.passage.id);
    }
    this.rows = this.rows.filter((r) => r.key !== key);
    this.#save();
  }

  /** A query the user typed (no source passage: the judge fills its judgments). */
  add(text: string): void {
    const t = text.trim();
    if (t === '') return;
    this.rows = [...this.rows, this.#row({ text: t, written: null, passage: null, origin: 'typed' })];
    this.#save();
  }

  /** Queries from a file the user picked (any queries format the lab reads). */
  async importQueries(file: CollectionFile): Promise<void> {
    this.error = null;
    try {
      const files = this.files;
      const queries = await this.#lab.lab.parseQueriesFile(file);
      if (this.files !== files) return;
      const rows = queries
        .filter((q) => q.text.trim() !== '')
        .map((q) => this.#row({ text: q.text.trim(), written: null, passage: null, origin: 'imported' }));
      this.rows = [...this.rows, ...rows];
      this.#save();
    } catch (e) {
      this.error = errorText(errorInfo(e));
    }
  }

  /** The queries that will be used: every row with text. */
  get usable(): readonly QueryRow[] {
    return this.rows.filter((r) => r.text.trim() !== '');
  }

  /**
   * Add the queries, the source passages' judgments and the provenance to the documents and open them as a
   * collection (stored like any files the user opens).
   */
  async use(): Promise<void> {
    const files = this.files;
    const rows = this.usable;
    if (files === null || rows.length === 0 || this.status !== 'idle') return;
    this.status = 'opening';
    this.error = null;
    try {
      const made: MadeQuery[] = rows.map((r) => ({
        text: r.text.trim(),
        source: r.passage?.id ?? null,
        origin: r.origin,
        ...(r.writer === undefined ? {} : { writer: r.writer }),
      }));
      const writer = this.#usedWriter;
      const wrote = rows.some((r) => r.origin === 'reader' || r.origin === 'edited');
      const sample = this.sample;
      const out = syntheticFiles(made, {
        reader:
          wrote && writer !== null ? { model: writer.reader.model, revision: writer.reader.revision, dtype: writer.reader.dtype } : null,
        prompt: wrote && writer !== null ? { name: templateName(writer.template), text: writer.template.user } : null,
        sample:
          wrote && sample !== null
            ? { asked: this.#sampled ?? this.count, seed: this.seed, strata: sample.strata, tooShort: sample.tooShort }
            : null,
        deleted: this.deleted,
      });
      // Beside the documents, in the folder they share, so the collection keeps its name.
      const top = normalizePath(files[0]?.path ?? '').split('/')[0] ?? '';
      const at = (p: string) => (files.every((f) => normalizePath(f.path).startsWith(`${top}/`)) ? `${top}/${p}` : p);
      const added = [
        textFile(at('queries.jsonl'), out.queries),
        ...(out.qrels === null ? [] : [textFile(at('qrels/test.tsv'), out.qrels)]),
        textFile(at(SYNTHETIC_QUERIES_FILE), out.provenance),
      ];
      const without = files.filter((f) => !/(^|\/)(queries\.jsonl|qrels\/test\.tsv|synthetic-queries\.json)$/.test(normalizePath(f.path)));
      await this.#collections.openUpload([...without, ...added]);
      if (this.#lab.collectionError === null) {
        this.#forget(files);
        this.files = null;
      }
    } catch (e) {
      this.error = errorText(errorInfo(e));
    } finally {
      this.status = 'idle';
    }
  }

  dispose(): void {
    this.cancel();
    this.#bridge.terminate();
  }

  /** Keep the list as a draft of these documents (a full or blocked storage only loses the draft). */
  #save(): void {
    if (this.files === null) return;
    const draft: Draft = {
      count: this.count,
      promptText: this.promptText,
      sample: this.sample,
      sampled: this.#sampled,
      rows: this.rows.map(({ key: _key, ...r }) => r),
      deleted: this.deleted,
      deletedIds: this.#deletedIds,
      writer: this.#usedWriter,
    };
    try {
      localStorage.setItem(draftKey(this.name, this.files), JSON.stringify(draft));
    } catch {
      // the list stays on the page; only a reload would lose it
    }
  }

  #restore(): void {
    if (this.files === null) return;
    let draft: Draft;
    try {
      const text = localStorage.getItem(draftKey(this.name, this.files));
      if (text === null) return;
      draft = JSON.parse(text) as Draft;
    } catch {
      return;
    }
    this.count = draft.count;
    this.promptText = draft.promptText;
    this.sample = draft.sample;
    this.#sampled = draft.sampled;
    this.rows = draft.rows.map((r) => this.#row(r));
    this.deleted = draft.deleted;
    this.#deletedIds = [...(draft.deletedIds ?? [])];
    this.#usedWriter = draft.writer;
  }

  #forget(files: readonly CollectionFile[]): void {
    try {
      localStorage.removeItem(draftKey(this.name, files));
    } catch {
      // nothing kept
    }
  }

  #row(r: Omit<QueryRow, 'key'>): QueryRow {
    return { key: this.#nextKey++, ...r };
  }

  #update(key: number | undefined, patch: (r: QueryRow) => QueryRow): void {
    if (key === undefined) return;
    this.rows = this.rows.map((r) => (r.key === key ? patch(r) : r));
  }
}
