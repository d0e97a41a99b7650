/** The reader's input (core/answers/prompt.ts): passages in rank order cut to 300 words, the template as data, the cache key. */
import { describe, expect, it } from 'vitest';
import { answerKey, READER_TEMPLATE, readerMessages, readerTasks, templateName, truncateWords } from '../../../src/core/answers/prompt.ts';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe('truncateWords', () => {
  it('keeps the first n whitespace-separated words, joined by single spaces', () => {
    expect(truncateWords('  a\tb\n\nc   d ', 3)).toBe('a b c');
    expect(truncateWords(words(301), 300).split(' ')).toHaveLength(300);
    expect(truncateWords(words(301), 300).endsWith('w299')).toBe(true);
    expect(truncateWords('', 300)).toBe('');
  });
});

describe('readerMessages', () => {
  it('puts the passages in rank order, numbered, each cut to the template’s 300 words, with the question after them', () => {
    const [system, user] = readerMessages(READER_TEMPLATE, '  Who wrote it? ', [
      { id: 'a', title: 'First', text: words(400, 'a') },
      { id: 'b', title: '', text: 'second passage' },
    ]);
    expect(system).toEqual({ role: 'system', content: READER_TEMPLATE.system });
    expect(user!.role).toBe('user');
    const content = user!.content;
    expect(content).toMatch(/^Passages:\n\[1\] First\na0 a1 /);
    expect(content).toContain('a299\n\n[2] second passage\n\nQuestion: Who wrote it?\n\n');
    expect(content).not.toContain('a300');
    expect(content).toMatch(/reply with the single word unknown\.$/);
  });

  it('never reads text inside a passage or question as a placeholder', () => {
    const [, user] = readerMessages(READER_TEMPLATE, 'what is {passages}?', [{ id: 'a', text: 'see {question} and {rank}' }]);
    expect(user!.content).toContain('[1] see {question} and {rank}');
    expect(user!.content).toContain('Question: what is {passages}?');
  });
});

describe('answerKey', () => {
  const base = {
    model: 'org/model',
    revision: 'main',
    dtype: 'q8',
    template: templateName(READER_TEMPLATE),
    k: 10,
    passageIds: ['d1', 'd2'],
    question: 'q?',
  };
  it('changes with every part an answer depends on, and only with those', () => {
    expect(answerKey(base)).toBe(answerKey({ ...base, passageIds: ['d1', 'd2'] }));
    const variants = [
      { model: 'org/other' },
      { revision: 'abc123' },
      { dtype: 'fp32' },
      { template: 'fliplab-short-answer@v2' },
      { k: 5 },
      { passageIds: ['d2', 'd1'] },
      { question: 'q ?' },
    ];
    const keys = new Set([answerKey(base), ...variants.map((v) => answerKey({ ...base, ...v }))]);
    expect(keys.size).toBe(variants.length + 1);
  });
  it('names the template by id and version', () => {
    expect(templateName(READER_TEMPLATE)).toBe('fliplab-short-answer@v1');
  });
});

describe('readerTasks', () => {
  const corpus = {
    titles: ['T1', '', 'T3'],
    texts: ['one', 'two', 'three'],
    indexOf: new Map([
      ['d1', 0],
      ['d2', 1],
      ['d3', 2],
    ]),
  };
  const questions = new Map([
    ['q1', 'first?'],
    ['q2', 'second?'],
  ]);
  const lists: Record<string, string[]> = { q1: ['d3', 'gone', 'd1', 'd2'], q2: [] };
  it('takes the run’s top k that the corpus has, lists queries without text, counts passages the corpus lacks', () => {
    const set = readerTasks(READER_TEMPLATE, corpus, questions, (q) => lists[q], ['q1', 'q2', 'q9'], 3);
    expect(set.missingQuestions).toEqual(['q9']);
    expect(set.missingPassages).toBe(1);
    expect(set.tasks.map((t) => [t.queryId, t.passageIds])).toEqual([
      ['q1', ['d3', 'd1']],
      ['q2', []],
    ]);
    expect(set.tasks[0]!.messages[1]!.content).toContain('[1] T3\nthree\n\n[2] T1\none');
  });
});
