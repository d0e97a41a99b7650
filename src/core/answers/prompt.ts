/**
 * The reader's input (the paper's §3.5): the question with the k passages a retriever returned, each cut to
 * 300 words, in rank order, and an instruction to answer briefly from the passages or say `unknown`;
 * greedy decoding, at most 24 new tokens.
 *
 * The template is data: shown in the lab, written into exports and into every answers file, and its id and
 * version are part of each cached answer's key, so a changed wording never reuses answers made with the old
 * one. Change the text → bump `version`.
 */

export interface ReaderTemplate {
  /** Stable name; with `version`, what a cached answer was made with. */
  readonly id: string;
  readonly version: number;
  /** The system turn. */
  readonly system: string;
  /** The user turn; `{passages}` and `{question}` are replaced. */
  readonly user: string;
  /** One passage; `{rank}` (1-based), `{title}` and `{text}` are replaced; a passage without title drops `{title}` and its line. */
  readonly passage: string;
  /** Passages are joined with this. */
  readonly separator: string;
  /** Each passage's text is cut to this many whitespace-separated words (title excluded). */
  readonly passageWords: number;
  /** Generation stops after this many new tokens (or the model's end-of-turn token). */
  readonly maxNewTokens: number;
}

export const READER_TEMPLATE: ReaderTemplate = {
  id: 'fliplab-short-answer',
  version: 1,
  system: 'You answer questions using only the passages you are given.',
  user:
    'Passages:\n{passages}\n\nQuestion: {question}\n\n' +
    'Give a short answer (a few words) based on the passages above. ' +
    'If the passages do not contain the answer, reply with the single word unknown.',
  passage: '[{rank}] {title}\n{text}',
  separator: '\n\n',
  passageWords: 300,
  maxNewTokens: 24,
};

/** `"<id>@v<version>"`: how a template is named in cache keys, answers files and exports. */
export const templateName = (t: ReaderTemplate): string => `${t.id}@v${t.version}`;

/** The first `words` whitespace-separated words of `text`, joined by single spaces. */
export function truncateWords(text: string, words: number): string {
  const parts = text.split(/\s+/).filter((w) => w.length > 0);
  return parts.slice(0, words).join(' ');
}

export interface ReaderPassage {
  readonly id: string;
  readonly title?: string;
  readonly text: string;
}

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** Replace `{name}` once each, left to right, so text inside a passage is never read as a placeholder. */
function fill(pattern: string, values: Readonly<Record<string, string>>): string {
  return pattern.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The chat messages for one question and its passages (already in rank order, already cut to k). */
export function readerMessages(template: ReaderTemplate, question: string, passages: readonly ReaderPassage[]): ChatMessage[] {
  const rendered = passages.map((p, i) => {
    const title = (p.title ?? '').trim();
    const pattern = title === '' ? template.passage.replace(/\{title\}\n?/, '') : template.passage;
    return fill(pattern, { rank: String(i + 1), title, text: truncateWords(p.text, template.passageWords) });
  });
  return [
    { role: 'system', content: template.system },
    { role: 'user', content: fill(template.user, { passages: rendered.join(template.separator), question: question.trim() }) },
  ];
}

/** What one cached answer depends on; nothing else may change it. */
export interface AnswerKeyParts {
  /** Model id (hub repo or `local:<name>`). */
  readonly model: string;
  readonly revision: string;
  readonly dtype: string;
  /** {@link templateName}: the template's id and version. */
  readonly template: string;
  readonly k: number;
  readonly passageIds: readonly string[];
  readonly question: string;
}

/**
 * The cache key: a JSON array (unambiguous for any id or question text). The template's name stands for its
 * text; a template whose text changed without a version bump would be a bug in fliplab, not in the cache.
 */
export function answerKey(p: AnswerKeyParts): string {
  return JSON.stringify([p.model, p.revision, p.dtype, p.template, p.k, p.passageIds, p.question]);
}

/**
 * A reader's raw output as the prediction: special tokens already removed by the caller, surrounding
 * whitespace trimmed, nothing else (the paper scores the output as generated; 24 tokens keep it short).
 */
export function cleanAnswer(raw: string): string {
  return raw.trim();
}

/** One question to answer from one retriever's top k. */
export interface ReaderTask {
  readonly queryId: string;
  readonly question: string;
  /** The retriever's top k (rank order), the ones the corpus has. */
  readonly passageIds: readonly string[];
  readonly messages: readonly ChatMessage[];
}

export interface ReaderTaskSet {
  readonly tasks: readonly ReaderTask[];
  /** Asked-for queries that have no text in queries.jsonl (left out). */
  readonly missingQuestions: readonly string[];
  /** Ranked documents the corpus does not have (left out of the passages): how many, over all tasks. */
  readonly missingPassages: number;
}

export interface CorpusLike {
  readonly titles: readonly string[];
  readonly texts: readonly string[];
  readonly indexOf: ReadonlyMap<string, number>;
}

/**
 * The reader's tasks for `queryIds` under one run: question text, the run's top k documents, the messages.
 * A query the run has no list for gets no passages (the reader sees the question alone, as a retriever that
 * returned nothing would leave it).
 */
export function readerTasks(
  template: ReaderTemplate,
  corpus: CorpusLike,
  questions: ReadonlyMap<string, string>,
  ranked: (queryId: string) => readonly string[] | undefined,
  queryIds: readonly string[],
  k: number,
): ReaderTaskSet {
  const tasks: ReaderTask[] = [];
  const missingQuestions: string[] = [];
  let missingPassages = 0;
  for (const queryId of queryIds) {
    const question = questions.get(queryId);
    if (question === undefined) {
      missingQuestions.push(queryId);
      continue;
    }
    const passages: ReaderPassage[] = [];
    for (const id of (ranked(queryId) ?? []).slice(0, k)) {
      const i = corpus.indexOf.get(id);
      if (i === undefined) missingPassages++;
      else passages.push({ id, title: corpus.titles[i] ?? '', text: corpus.texts[i] ?? '' });
    }
    tasks.push({ queryId, question, passageIds: passages.map((p) => p.id), messages: readerMessages(template, question, passages) });
  }
  return { tasks, missingQuestions, missingPassages };
}
