/**
 * Topics (queries) in the formats people bring along with qrels and TREC runs, recognised by content, never
 * by file name:
 *
 * - **TSV** `qid<TAB>text`, MS MARCO `queries.*.tsv` style. A first line naming the columns (`query-id<TAB>text`,
 *   `qid<TAB>query`, …) is skipped. The text is everything after the first tab, as written.
 * - **BEIR `queries.jsonl`**: one JSON object per line, read by the BEIR parser (`QueriesBuilder`).
 * - **TREC SGML topics** of the older tracks (TREC 1–8, Robust, Web, Terabyte): `<top> <num> Number: 301
 *   <title> … <desc> Description: … <narr> Narrative: … </top>`. Fields are not closed: a field runs to the
 *   next tag and may span lines. `<num>301</num>` (closed fields) reads the same. Labels (`Number:`, `Topic:`,
 *   `Description:`) are dropped; an all-digit number loses its leading zeros (`051` → `51`, with a warning),
 *   as Anserini reads these numbers as integers and as those tracks' qrels write them.
 * - **TREC XML topics** (TREC-COVID; also the Web track's layout): `<topics><topic number="1"><query>…</query>
 *   <question>…</question><narrative>…</narrative></topic>…</topics>`. Elements must nest and close; the
 *   five predefined entities and numeric character references are decoded. `<title>` is read where
 *   `<query>` is absent and `<description>` where `<question>` is. Nested elements (e.g. the Web track's
 *   `<subtopic>`) are not part of the text.
 *
 * Which fields make the text: `fields: 'short'` (default) takes the SGML `<title>` / the XML `<query>`;
 * `'long'` appends the description (`<desc>` / `<question>`) after one space. SGML and XML texts have their
 * whitespace runs (line breaks included) collapsed to one space and are trimmed. gzip is recognised by its
 * magic bytes. The result is the project's `Queries` (file order; position = index) plus the format read.
 */
import type { Diagnostic, Queries, QueryId } from '../types.ts';
import { QueriesBuilder } from './beir.ts';
import { InputError, quote } from './errors.ts';
import { asQueryId, IdRewrites } from './ids.ts';
import { readLines, type TextSource } from './lines.ts';
import type { ParseResult } from './trec.ts';

/** The format `parseTopics` recognised. */
export type TopicsFormat = 'tsv' | 'beir-jsonl' | 'trec-sgml' | 'trec-xml';

export interface TopicsOptions {
  /**
   * Which topic fields make the query text (TREC SGML and XML only; TSV and JSONL have one text):
   * `'short'` (default) = `<title>` (SGML) or `<query>` (XML); `'long'` = that plus, after one space,
   * `<desc>` (SGML) or `<question>` (XML). A topic without the description keeps the short text (one warning
   * counts them).
   */
  readonly fields?: 'short' | 'long';
}

export interface TopicsResult extends ParseResult<Queries> {
  readonly format: TopicsFormat;
}

/** How many ids a warning names before it only counts. */
const WARN_LIST_MAX = 5;

/** First fields of a TSV header line (compared lowercased). */
const TSV_HEADER_IDS = new Set(['query-id', 'query_id', 'queryid', 'qid', 'id', '_id', 'topic', 'topic-id', 'topic_id']);

/**
 * Read topics from any source (string, bytes, byte stream; gzip or not), format sniffed from the first
 * non-blank line: `{` → BEIR JSONL, `<` → TREC markup (the first tag decides: `<top>` → SGML, anything else
 * → XML), otherwise TSV. Throws `InputError(file, line, reason)` on malformed input and when no topic is found.
 */
export async function parseTopics(source: TextSource, file: string, options: TopicsOptions = {}): Promise<TopicsResult> {
  const long = options.fields === 'long';
  let reader: TopicLineReader | undefined;
  await readLines(
    source,
    (line, lineNo) => {
      if (reader === undefined) {
        const c = firstNonSpace(line);
        if (c < 0) return;
        reader =
          line.charCodeAt(c) === 0x7b /* { */
            ? new JsonlTopics(file)
            : line.charCodeAt(c) === 0x3c /* < */
              ? new MarkupTopics(file, long)
              : new TsvTopics(file);
      }
      reader.line(line, lineNo);
    },
    file,
  );
  if (reader === undefined) throw new InputError(file, undefined, 'expected at least one topic, found none (the file is empty)');
  return reader.finish();
}

function firstNonSpace(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 11 && c !== 12 && c !== 13) return i;
  }
  return -1;
}

interface TopicLineReader {
  line(raw: string, lineNo: number): void;
  finish(): TopicsResult;
}

class JsonlTopics implements TopicLineReader {
  private readonly b: QueriesBuilder;
  constructor(file: string) {
    this.b = new QueriesBuilder(file);
  }
  line(raw: string, lineNo: number): void {
    this.b.line(raw, lineNo);
  }
  finish(): TopicsResult {
    return { ...this.b.finish(), format: 'beir-jsonl' };
  }
}

/** Topics in file order with unique ids; duplicate ids name the earlier line; empty texts give one warning. */
class TopicList {
  readonly ids: QueryId[] = [];
  readonly texts: string[] = [];
  readonly indexOf = new Map<QueryId, number>();
  readonly warnings: Diagnostic[] = [];
  private readonly lines: number[] = [];
  private readonly emptyIds: string[] = [];
  private readonly rewrites = new IdRewrites();
  private empty = 0;

  constructor(private readonly file: string) {}

  add(raw: string, text: string, lineNo: number, what = 'query'): void {
    const id = this.rewrites.take(raw);
    if (id === '') throw new InputError(this.file, lineNo, `expected a ${what} id, found only white space`);
    const qid = asQueryId(id);
    const prev = this.indexOf.get(qid);
    if (prev !== undefined)
      throw new InputError(this.file, lineNo, `duplicate ${what} id ${quote(id)} (first on line ${this.lines[prev]})`);
    if (text.trim().length === 0 && this.empty++ < WARN_LIST_MAX) this.emptyIds.push(id);
    this.indexOf.set(qid, this.ids.length);
    this.ids.push(qid);
    this.texts.push(text);
    this.lines.push(lineNo);
  }

  finish(format: TopicsFormat): TopicsResult {
    if (this.ids.length === 0) throw new InputError(this.file, undefined, 'expected at least one topic, found none');
    const warnings = [...this.warnings, ...this.rewrites.warning(this.file, 'query')];
    if (this.empty > 0) {
      const named = this.emptyIds.map((s) => quote(s)).join(', ') + (this.empty > this.emptyIds.length ? ', …' : '');
      warnings.push({
        severity: 'warning',
        file: this.file,
        message: `${this.empty} query(ies) with empty text (kept; they can never be retrieved by text): ${named}`,
      });
    }
    return { value: { ids: this.ids, texts: this.texts, indexOf: this.indexOf }, warnings, format };
  }
}

class TsvTopics implements TopicLineReader {
  private readonly list: TopicList;
  private sawContent = false;

  constructor(private readonly file: string) {
    this.list = new TopicList(file);
  }

  line(raw: string, lineNo: number): void {
    if (firstNonSpace(raw) < 0) return;
    const first = !this.sawContent;
    this.sawContent = true;
    const tab = raw.indexOf('\t');
    if (tab < 0) {
      throw new InputError(this.file, lineNo, `expected "qid<TAB>text" (TSV queries), found no tab: ${quote(raw)}`);
    }
    const id = raw.slice(0, tab).trim();
    if (first && TSV_HEADER_IDS.has(id.toLowerCase())) return;
    if (id.length === 0) throw new InputError(this.file, lineNo, `expected a query id before the tab, found none: ${quote(raw)}`);
    if (/\s/.test(id)) {
      throw new InputError(this.file, lineNo, `query id ${quote(id)} contains whitespace (qrels and runs could never name it)`);
    }
    this.list.add(id, raw.slice(tab + 1), lineNo);
  }

  finish(): TopicsResult {
    return this.list.finish('tsv');
  }
}

// ---------------------------------------------------------------------------------------------------------
// Markup: a small line-oriented tag scanner shared by the SGML and XML readers. A tag must sit on one line;
// a `<` that does not start a tag there is text. Comments (`<!-- -->`, may span lines), processing
// instructions (`<?…?>`) and declarations (`<!DOCTYPE …>`) are skipped. CDATA sections are not supported.

interface MarkupSink {
  open(name: string, attrs: ReadonlyMap<string, string>, lineNo: number, raw: string): void;
  close(name: string, lineNo: number, raw: string): void;
  text(s: string, lineNo: number): void;
  /** End of a source line (text on either side is separated). */
  newline(): void;
  end(): void;
}

const TAG = /<(\/?)([A-Za-z][\w.:-]*)((?:\s[^<>]*?)?)(\/?)>/y;
const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

class MarkupScanner {
  private inComment = false;

  constructor(
    private readonly file: string,
    private readonly sink: MarkupSink,
  ) {}

  line(raw: string, lineNo: number): void {
    let i = 0;
    let textStart = 0;
    const n = raw.length;
    const flush = (end: number) => {
      if (end > textStart) this.sink.text(raw.slice(textStart, end), lineNo);
    };
    if (this.inComment) {
      const close = raw.indexOf('-->');
      if (close < 0) return;
      this.inComment = false;
      i = textStart = close + 3;
    }
    while (i < n) {
      const lt = raw.indexOf('<', i);
      if (lt < 0) break;
      if (raw.startsWith('<!--', lt)) {
        flush(lt);
        const close = raw.indexOf('-->', lt + 4);
        if (close < 0) {
          this.inComment = true;
          this.sink.newline();
          return;
        }
        i = textStart = close + 3;
        continue;
      }
      if (raw.startsWith('<?', lt) || raw.startsWith('<!', lt)) {
        const close = raw.indexOf('>', lt + 2);
        if (close >= 0) {
          flush(lt);
          i = textStart = close + 1;
          continue;
        }
        i = lt + 1;
        continue;
      }
      TAG.lastIndex = lt;
      const m = TAG.exec(raw);
      if (m === null) {
        i = lt + 1;
        continue;
      }
      flush(lt);
      const name = m[2]!.toLowerCase();
      const tag = m[0];
      if (m[1] === '/') this.sink.close(name, lineNo, tag);
      else {
        const attrs = new Map<string, string>();
        for (const a of m[3]!.matchAll(ATTR)) attrs.set(a[1]!.toLowerCase(), a[2] ?? a[3] ?? '');
        this.sink.open(name, attrs, lineNo, tag);
        if (m[4] === '/') this.sink.close(name, lineNo, tag);
      }
      i = textStart = TAG.lastIndex;
    }
    flush(n);
    this.sink.newline();
  }

  end(): void {
    if (this.inComment) throw new InputError(this.file, undefined, 'a comment "<!--" is not closed by "-->" before the end of the file');
    this.sink.end();
  }
}

/** Collapse whitespace runs (line breaks included) to one space and trim. */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Drop a leading field label such as "Number:" or "Description:" (case-insensitive). */
const unlabel = (s: string, label: string): string => s.replace(new RegExp(`^${label}\\s*:\\s*`, 'i'), '');

/** Dispatches on the first tag: `<top>` → SGML topics, anything else → XML topics. */
class MarkupTopics implements TopicLineReader {
  private readonly scanner: MarkupScanner;
  private reader: SgmlTopics | XmlTopics | undefined;

  constructor(
    private readonly file: string,
    long: boolean,
  ) {
    const dispatch: MarkupSink = {
      open: (name, attrs, lineNo, raw) => {
        if (this.reader === undefined) this.reader = name === 'top' ? new SgmlTopics(file, long) : new XmlTopics(file, long);
        this.reader.open(name, attrs, lineNo, raw);
      },
      close: (name, lineNo, raw) => {
        if (this.reader === undefined) throw new InputError(file, lineNo, `expected <top> or <topics>, found ${quote(raw)}`);
        this.reader.close(name, lineNo, raw);
      },
      text: (s, lineNo) => {
        if (this.reader === undefined) {
          if (s.trim().length > 0) throw new InputError(file, lineNo, `expected <top> or <topics>, found text ${quote(s.trim())}`);
          return;
        }
        this.reader.text(s, lineNo);
      },
      newline: () => this.reader?.newline(),
      end: () => this.reader?.end(),
    };
    this.scanner = new MarkupScanner(file, dispatch);
  }

  line(raw: string, lineNo: number): void {
    this.scanner.line(raw, lineNo);
  }

  finish(): TopicsResult {
    this.scanner.end();
    if (this.reader === undefined) throw new InputError(this.file, undefined, 'expected <top> or <topics>, found no tag');
    return this.reader.finish();
  }
}

interface OpenTopic {
  readonly line: number;
  readonly fields: Map<string, { text: string; line: number }>;
  /** Number from the `number` attribute (XML). */
  readonly number?: string;
}

/** Open field `name` of `topic` at `lineNo` (SGML and XML alike): a second one in the same topic is refused. */
function openField(file: string, topic: OpenTopic, name: string, lineNo: number): { text: string; line: number } {
  const prev = topic.fields.get(name);
  if (prev) throw new InputError(file, lineNo, `second <${name}> in the topic opened on line ${topic.line} (first on line ${prev.line})`);
  const field = { text: '', line: lineNo };
  topic.fields.set(name, field);
  return field;
}

/** Counts of what the short/long choice and the number rule did, for one warning each. */
class TopicNotes {
  noDescription = 0;
  zeroPadded: string[] = [];
  strayText = 0;
  firstStrayLine = 0;

  constructor(private readonly file: string) {}

  stray(lineNo: number): void {
    if (this.strayText++ === 0) this.firstStrayLine = lineNo;
  }

  warnings(describe: string, where: string): Diagnostic[] {
    const out: Diagnostic[] = [];
    const file = this.file;
    if (this.noDescription > 0) {
      out.push({
        severity: 'warning',
        file,
        message: `${this.noDescription} topic(s) have no ${describe}; their text is the short field alone`,
      });
    }
    if (this.zeroPadded.length > 0) {
      out.push({
        severity: 'warning',
        file,
        message:
          `${this.zeroPadded.length} topic number(s) written with leading zeros were read as integers ` +
          `(${this.zeroPadded.slice(0, 3).join(', ')}), as TREC qrels write them`,
      });
    }
    if (this.strayText > 0) {
      out.push({
        severity: 'warning',
        file,
        line: this.firstStrayLine,
        message: `${this.strayText} piece(s) of text outside ${where} were ignored`,
      });
    }
    return out;
  }
}

/** Fields of the SGML topics that are read (others — <head>, <dom>, <narr>, <con>, … — are skipped). */
const SGML_FIELDS = new Set(['num', 'title', 'desc']);

class SgmlTopics implements MarkupSink {
  private readonly list: TopicList;
  private readonly notes: TopicNotes;
  private topic: OpenTopic | undefined;
  private field: { text: string; line: number } | undefined;

  constructor(
    private readonly file: string,
    private readonly long: boolean,
  ) {
    this.list = new TopicList(file);
    this.notes = new TopicNotes(file);
  }

  open(name: string, _attrs: ReadonlyMap<string, string>, lineNo: number, raw: string): void {
    if (name === 'top') {
      if (this.topic) {
        throw new InputError(
          this.file,
          lineNo,
          `expected </top> to close the topic opened on line ${this.topic.line}, found another <top>`,
        );
      }
      this.topic = { line: lineNo, fields: new Map() };
      this.field = undefined;
      return;
    }
    if (!this.topic) throw new InputError(this.file, lineNo, `expected <top> before ${quote(raw)}`);
    this.field = undefined;
    if (!SGML_FIELDS.has(name)) {
      this.field = { text: '', line: lineNo }; // read and dropped
      return;
    }
    this.field = openField(this.file, this.topic, name, lineNo);
  }

  close(name: string, lineNo: number, raw: string): void {
    if (name === 'top') {
      if (!this.topic) throw new InputError(this.file, lineNo, `found ${quote(raw)} without an open <top>`);
      this.finishTopic(this.topic, lineNo);
      this.topic = undefined;
    } else if (!this.topic) {
      throw new InputError(this.file, lineNo, `expected <top> before ${quote(raw)}`);
    }
    this.field = undefined; // `<num>301</num>`: text after a closing tag belongs to no field
  }

  text(s: string, lineNo: number): void {
    if (this.field) this.field.text += s;
    else if (!this.topic && s.trim().length > 0) this.notes.stray(lineNo);
  }

  newline(): void {
    if (this.field) this.field.text += '\n';
  }

  end(): void {
    if (this.topic) throw new InputError(this.file, this.topic.line, 'the topic opened here is not closed by </top>');
  }

  private finishTopic(t: OpenTopic, closeLine: number): void {
    const num = t.fields.get('num');
    if (!num) throw new InputError(this.file, t.line, `the topic opened here (closed on line ${closeLine}) has no <num>`);
    let id = squash(unlabel(squash(num.text), 'number'));
    if (id.length === 0) throw new InputError(this.file, num.line, 'expected a topic number after <num>, found none');
    if (/\s/.test(id)) throw new InputError(this.file, num.line, `expected one topic number after <num>, got ${quote(id)}`);
    if (/^0+\d/.test(id) && /^\d+$/.test(id)) {
      this.notes.zeroPadded.push(`${id} → ${id.replace(/^0+(?=\d)/, '')}`);
      id = id.replace(/^0+(?=\d)/, '');
    }
    const title = t.fields.get('title');
    if (!title) throw new InputError(this.file, t.line, `topic ${quote(id)} opened here has no <title>`);
    let text = unlabel(squash(title.text), 'topic');
    if (this.long) {
      const desc = t.fields.get('desc');
      const d = desc ? unlabel(squash(desc.text), 'description') : '';
      if (d.length === 0) this.notes.noDescription++;
      else text = text.length > 0 ? `${text} ${d}` : d;
    }
    this.list.add(id, text, t.line, 'topic');
  }

  finish(): TopicsResult {
    const r = this.list.finish('trec-sgml');
    return { ...r, warnings: [...this.notes.warnings('<desc>', '<top>…</top>'), ...r.warnings] };
  }
}

const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name]!;
    const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

/** Child elements of <topic> that are read; the first of each pair that is present is used. */
const XML_SHORT = ['query', 'title'];
const XML_LONG = ['question', 'description'];
const XML_NUMBER = ['num', 'number'];
const XML_FIELDS = new Set([...XML_SHORT, ...XML_LONG, ...XML_NUMBER]);

class XmlTopics implements MarkupSink {
  private readonly list: TopicList;
  private readonly notes: TopicNotes;
  private readonly stack: { name: string; line: number }[] = [];
  private topic: OpenTopic | undefined;
  /** Depth of the <topic> element in the stack. */
  private topicDepth = -1;
  private field: { text: string; line: number } | undefined;
  private sawRoot = false;

  constructor(
    private readonly file: string,
    private readonly long: boolean,
  ) {
    this.list = new TopicList(file);
    this.notes = new TopicNotes(file);
  }

  open(name: string, attrs: ReadonlyMap<string, string>, lineNo: number, raw: string): void {
    if (this.stack.length === 0 && this.sawRoot) {
      throw new InputError(this.file, lineNo, `expected the end of the file after the root element closed, found ${quote(raw)}`);
    }
    this.sawRoot = true;
    this.field = undefined;
    if (name === 'topic') {
      if (this.topic) {
        throw new InputError(this.file, lineNo, `a <topic> inside the <topic> opened on line ${this.topic.line}: expected </topic> first`);
      }
      const number = attrs.get('number');
      this.topic = { line: lineNo, fields: new Map(), ...(number !== undefined ? { number } : {}) };
      this.topicDepth = this.stack.length;
    } else if (this.topic && this.stack.length === this.topicDepth + 1 && XML_FIELDS.has(name)) {
      this.field = openField(this.file, this.topic, name, lineNo);
    }
    this.stack.push({ name, line: lineNo });
  }

  close(name: string, lineNo: number, raw: string): void {
    const top = this.stack.pop();
    if (!top) throw new InputError(this.file, lineNo, `found ${quote(raw)} without an open element`);
    if (top.name !== name)
      throw new InputError(this.file, lineNo, `expected </${top.name}> (opened on line ${top.line}), found ${quote(raw)}`);
    this.field = undefined;
    if (this.topic && this.stack.length === this.topicDepth) {
      this.finishTopic(this.topic);
      this.topic = undefined;
      this.topicDepth = -1;
    }
  }

  text(s: string, lineNo: number): void {
    if (this.field) this.field.text += decodeEntities(s);
    else if (!this.topic && s.trim().length > 0) this.notes.stray(lineNo);
  }

  newline(): void {
    if (this.field) this.field.text += '\n';
  }

  end(): void {
    const open = this.stack[this.stack.length - 1];
    if (open) throw new InputError(this.file, open.line, `<${open.name}> opened here is not closed before the end of the file`);
  }

  private pick(t: OpenTopic, names: readonly string[]): string | undefined {
    for (const n of names) {
      const f = t.fields.get(n);
      if (f) return squash(f.text);
    }
    return undefined;
  }

  private finishTopic(t: OpenTopic): void {
    const number = t.number ?? this.pick(t, XML_NUMBER);
    if (number === undefined) throw new InputError(this.file, t.line, 'the <topic> opened here has no number="…" attribute (nor a <num>)');
    const id = number.trim();
    if (id.length === 0) throw new InputError(this.file, t.line, 'the <topic> opened here has an empty number');
    if (/\s/.test(id)) throw new InputError(this.file, t.line, `expected one topic number, got ${quote(id)}`);
    const short = this.pick(t, XML_SHORT);
    if (short === undefined) throw new InputError(this.file, t.line, `topic ${quote(id)} opened here has no <query> (nor a <title>)`);
    let text = short;
    if (this.long) {
      const q = this.pick(t, XML_LONG) ?? '';
      if (q.length === 0) this.notes.noDescription++;
      else text = text.length > 0 ? `${text} ${q}` : q;
    }
    this.list.add(id, text, t.line, 'topic');
  }

  finish(): TopicsResult {
    const r = this.list.finish('trec-xml');
    return { ...r, warnings: [...this.notes.warnings('<question>', '<topic> elements'), ...r.warnings] };
  }
}
