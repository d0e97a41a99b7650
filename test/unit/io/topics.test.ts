/**
 * Topics in four formats, recognised by content. Fixtures are written after the real files: TREC-6's
 * topics 301–303 (SGML, unclosed fields spanning lines) and TREC-COVID's topics 1–3 (XML).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQueries } from '../../../src/core/io/beir.ts';
import { parseTopics } from '../../../src/core/io/topics.ts';
import { SCIFACT_DIR } from '../../shared-data.ts';
import { inputError } from './helpers.ts';

const SGML = `<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal
activity, the activity, and, if possible, collaborating organizations
and the countries involved.

<narr> Narrative:
A relevant document must as a minimum identify the organization and the
type of illegal activity (e.g., Columbian cartel exporting cocaine).
</top>


<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio

<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the
world?

<narr> Narrative:
Relevant documents should contain data or outbreaks of the
polio disease (large or small scale), medical protection
against the disease, reports on what has been labeled as
"post-polio" problems.
</top>


<top>
<num> Number: 303
<title> Hubble Telescope
Achievements

<desc> Description:
Identify positive accomplishments of the Hubble telescope since it
was launched in 1991.

<narr> Narrative:
Documents are relevant that show the Hubble telescope has produced
new data, better quality data than previously available, < or > than
expected, or has increased human knowledge of the universe.
</top>
`;

const COVID = `<?xml version="1.0" encoding="UTF-8"?>
<topics task="COVIDSearch" batch="5">
  <!-- round 5: topics 1-50 -->
  <topic number="1">
    <query>coronavirus origin</query>
    <question>what is the origin of COVID-19</question>
    <narrative>seeking range of information about the SARS-CoV-2 virus's origin, including its evolution, animal source, and first transmission into humans</narrative>
  </topic>
  <topic number="2">
    <query>coronavirus response to weather changes</query>
    <question>how does the coronavirus respond to changes in the weather</question>
    <narrative>seeking range of information about the SARS-CoV-2 virus viability in different weather/climate conditions
      as well as information related to transmission of the virus in different climate conditions</narrative>
  </topic>
  <topic number="3">
    <query>coronavirus immunity</query>
    <question>will SARS-CoV-2 infected people develop immunity? Is cross protection possible?</question>
    <narrative>seeking studies of immunity developed due to infection with SARS-CoV-2 or cross protection gained due to infection with other coronavirus types</narrative>
  </topic>
</topics>
`;

describe('TREC SGML topics', () => {
  it('reads numbers and titles (default), fields spanning lines collapsed to one line', async () => {
    const r = await parseTopics(SGML, 'topics.301-303.txt');
    expect(r.format).toBe('trec-sgml');
    expect(r.value.ids).toEqual(['301', '302', '303']);
    expect(r.value.texts).toEqual(['International Organized Crime', 'Poliomyelitis and Post-Polio', 'Hubble Telescope Achievements']);
    expect(r.value.indexOf.get(r.value.ids[2]!)).toBe(2);
    expect(r.warnings).toEqual([]);
  });

  it('title + description when asked, without the "Description:" label', async () => {
    const r = await parseTopics(SGML, 't', { fields: 'long' });
    expect(r.value.texts[1]).toBe('Poliomyelitis and Post-Polio Is the disease of Poliomyelitis (polio) under control in the world?');
    expect(r.value.texts[2]).toBe(
      'Hubble Telescope Achievements Identify positive accomplishments of the Hubble telescope since it was launched in 1991.',
    );
  });

  it('reads closed fields (<num>301</num>), a title on the next line, CRLF and gzip alike', async () => {
    const closed = '<top>\r\n<num>301</num>\r\n<title>\r\nInternational Organized Crime\r\n</title>\r\n<desc>Who?</desc>\r\n</top>\r\n';
    const r = await parseTopics(new Uint8Array(gzipSync(closed)), 'topics.gz', { fields: 'long' });
    expect(r.value.ids).toEqual(['301']);
    expect(r.value.texts).toEqual(['International Organized Crime Who?']);
  });

  it('reads TREC-1 style topics: "Topic:" dropped, zero-padded numbers read as integers with a warning', async () => {
    const trec1 = `<top>
<head> Tipster Topic Description
<num> Number:  051
<dom> Domain: International Economics
<title> Topic:  Airbus Subsidies
<desc> Description:
Document will discuss government assistance to Airbus Industrie.
<con> Concept(s):
1.  Airbus Industrie
</top>
`;
    const r = await parseTopics(trec1, 'topics.51-100');
    expect(r.value.ids).toEqual(['51']);
    expect(r.value.texts).toEqual(['Airbus Subsidies']);
    expect(r.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^1 topic number\(s\) .*leading zeros.*051 → 51/)]);
  });

  it('names the file and line of a <top> without <num>', async () => {
    const e = await inputError(parseTopics(SGML.replace('<num> Number: 302\n', ''), 'topics.txt'));
    expect(e.file).toBe('topics.txt');
    expect(e.line).toBe(16);
    expect(e.reason).toBe('the topic opened here (closed on line 28) has no <num>');
  });

  it('rejects duplicate topic numbers, naming the first', async () => {
    const e = await inputError(parseTopics(SGML.replace('Number: 303', 'Number: 301'), 'topics.txt'));
    expect(e.line).toBe(32);
    expect(e.reason).toBe('duplicate topic id "301" (first on line 1)');
  });

  it('rejects an unclosed <top>, a <top> inside a <top>, a missing <title> and two <num>s', async () => {
    const unclosed = await inputError(parseTopics('<top>\n<num> Number: 1\n<title> a\n', 't'));
    expect([unclosed.line, unclosed.reason]).toEqual([1, 'the topic opened here is not closed by </top>']);
    const nested = await inputError(parseTopics('<top>\n<num> 1\n<title> a\n<top>\n', 't'));
    expect(nested.line).toBe(4);
    expect(nested.reason).toMatch(/expected <\/top> to close the topic opened on line 1/);
    const noTitle = await inputError(parseTopics('<top>\n<num> Number: 7\n<desc> d\n</top>\n', 't'));
    expect([noTitle.line, noTitle.reason]).toEqual([1, 'topic "7" opened here has no <title>']);
    const twoNums = await inputError(parseTopics('<top>\n<num> 1\n<num> 2\n<title> x\n</top>\n', 't'));
    expect(twoNums.line).toBe(3);
    expect(twoNums.reason).toMatch(/second <num>.*first on line 2/);
    const spaced = await inputError(parseTopics('<top>\n<num> Number: 1 2\n<title> x\n</top>\n', 't'));
    expect(spaced.reason).toBe('expected one topic number after <num>, got "1 2"');
  });

  it('warns about text outside <top> and about topics without <desc> when asked for it', async () => {
    const r = await parseTopics('<top>\n<num> 1\n<title> a\n</top>\nstray words\n<top>\n<num> 2\n<title> b\n<desc> d\n</top>\n', 't', {
      fields: 'long',
    });
    expect(r.value.texts).toEqual(['a', 'b d']);
    expect(r.warnings.map((w) => [w.line, w.message])).toEqual([
      [undefined, '1 topic(s) have no <desc>; their text is the short field alone'],
      [5, '1 piece(s) of text outside <top>…</top> were ignored'],
    ]);
  });
});

describe('TREC-COVID XML topics', () => {
  it('reads number attributes and queries (default); skips the prolog and comments', async () => {
    const r = await parseTopics(COVID, 'topics-rnd5.xml');
    expect(r.format).toBe('trec-xml');
    expect(r.value.ids).toEqual(['1', '2', '3']);
    expect(r.value.texts).toEqual(['coronavirus origin', 'coronavirus response to weather changes', 'coronavirus immunity']);
    expect(r.warnings).toEqual([]);
  });

  it('query + question when asked', async () => {
    const r = await parseTopics(COVID, 'topics-rnd5.xml', { fields: 'long' });
    expect(r.value.texts[0]).toBe('coronavirus origin what is the origin of COVID-19');
    expect(r.value.texts[2]).toBe('coronavirus immunity will SARS-CoV-2 infected people develop immunity? Is cross protection possible?');
  });

  it('decodes entities, reads gzip, and ignores nested elements (Web track subtopics)', async () => {
    const web = `<webtrack2012>
<topic number="151" type="faceted">
  <query>403b &amp; 401k</query>
  <description>What is a &quot;403b&quot; plan &#8212; and &#x2018;who&#x2019; is eligible?</description>
  <subtopic number="1" type="inf">What is a 403b?</subtopic>
</topic>
</webtrack2012>`;
    const r = await parseTopics(new Uint8Array(gzipSync(web)), 'web.xml.gz', { fields: 'long' });
    expect(r.value.ids).toEqual(['151']);
    expect(r.value.texts).toEqual(['403b & 401k What is a "403b" plan — and ‘who’ is eligible?']);
  });

  it('names the line of a topic without a number, a duplicate number, a mismatched and an unclosed element', async () => {
    const noNumber = await inputError(parseTopics(COVID.replace('<topic number="2">', '<topic>'), 'covid.xml'));
    expect([noNumber.file, noNumber.line]).toEqual(['covid.xml', 9]);
    expect(noNumber.reason).toMatch(/has no number="…" attribute/);
    const dup = await inputError(parseTopics(COVID.replace('<topic number="3">', '<topic number="1">'), 'covid.xml'));
    expect([dup.line, dup.reason]).toEqual([15, 'duplicate topic id "1" (first on line 4)']);
    const mismatch = await inputError(parseTopics(COVID.replace('</question>', '</query>'), 'covid.xml'));
    expect([mismatch.line, mismatch.reason]).toEqual([6, 'expected </question> (opened on line 6), found "</query>"']);
    const unclosed = await inputError(parseTopics(COVID.replace('</topics>', ''), 'covid.xml'));
    expect([unclosed.line, unclosed.reason]).toEqual([2, '<topics> opened here is not closed before the end of the file']);
    const noQuery = await inputError(parseTopics('<topics><topic number="9"><question>q</question></topic></topics>', 'c.xml'));
    expect(noQuery.reason).toMatch(/topic "9" opened here has no <query>/);
  });
});

describe('TSV queries', () => {
  it('reads qid<TAB>text as written, skipping a header and blank lines', async () => {
    const r = await parseTopics("query-id\ttext\n1048585\twhat is paula deen's brother\n\n2\t  Androgen receptor define \n", 'queries.tsv');
    expect(r.format).toBe('tsv');
    expect(r.value.ids).toEqual(['1048585', '2']);
    expect(r.value.texts).toEqual(["what is paula deen's brother", '  Androgen receptor define ']);
  });

  it('a line without a tab is an error naming the file and line', async () => {
    const e = await inputError(parseTopics('1\tfirst\n2 second\n', 'queries.dev.tsv'));
    expect(e.message).toBe('queries.dev.tsv:2: expected "qid<TAB>text" (TSV queries), found no tab: "2 second"');
  });

  it('rejects empty ids, ids with spaces and duplicates', async () => {
    expect((await inputError(parseTopics('1\ta\n\tb\n', 'q'))).reason).toMatch(/expected a query id before the tab/);
    expect((await inputError(parseTopics('q 1\ta\n', 'q'))).reason).toMatch(/contains whitespace/);
    const dup = await inputError(parseTopics('7\ta\n8\tb\n7\tc\n', 'q'));
    expect([dup.line, dup.reason]).toEqual([3, 'duplicate query id "7" (first on line 1)']);
  });

  it('keeps empty texts with a warning', async () => {
    const r = await parseTopics('1\t\n2\tb\n', 'q');
    expect(r.value.texts).toEqual(['', 'b']);
    expect(r.warnings[0]?.message).toMatch(/^1 query\(ies\) with empty text.*"1"/);
  });

  it('equals a naive split on generated files, in any chunking, plain or gzip', async () => {
    const idArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/);
    const textArb = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !/[\n\r\t]/.test(s));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(idArb, textArb), { minLength: 1, maxLength: 30, selector: (t) => t[0] }),
        // ≥ 2: lines.ts sniffs gzip from the first chunk alone, so a 1-byte first chunk reads as text.
        fc.integer({ min: 2, max: 17 }),
        fc.boolean(),
        async (rows, cut, gzip) => {
          fc.pre(
            !['query-id', 'qid', 'id', '_id', 'topic', 'topic-id', 'topic_id', 'query_id', 'queryid'].includes(rows[0]![0].toLowerCase()),
          );
          const text = rows.map(([id, t]) => `${id}\t${t}\n`).join('');
          let bytes = new TextEncoder().encode(text);
          if (gzip) bytes = new Uint8Array(gzipSync(bytes));
          const chunks: Uint8Array[] = [];
          for (let i = 0; i < bytes.length; i += cut) chunks.push(bytes.subarray(i, i + cut));
          const r = await parseTopics(chunks, 'q.tsv');
          const naive = text
            .split('\n')
            .filter((l) => l.length > 0)
            .map((l) => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]);
          expect(r.value.ids.map((id, i) => [id, r.value.texts[i]])).toEqual(naive);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('BEIR queries.jsonl', () => {
  it('is recognised by content and read exactly as parseQueries reads it (SciFact)', async () => {
    const bytes = new Uint8Array(readFileSync(join(SCIFACT_DIR, 'queries.jsonl')));
    const viaTopics = await parseTopics(bytes, 'queries.jsonl');
    const viaBeir = await parseQueries(bytes, 'queries.jsonl');
    expect(viaTopics.format).toBe('beir-jsonl');
    expect(viaTopics.value.ids).toHaveLength(1109);
    expect(viaTopics.value.ids).toEqual(viaBeir.value.ids);
    expect(viaTopics.value.texts).toEqual(viaBeir.value.texts);
  });

  it('keeps the JSONL errors', async () => {
    const e = await inputError(parseTopics('{"_id": "1", "text": "a"}\n{"_id": "2"}\n', 'queries.jsonl'));
    expect(e.message).toBe('queries.jsonl:2: expected a "text" field, found none');
  });
});

describe('sniffing and empty input', () => {
  it('decides by content, not by name, and rejects an empty file', async () => {
    expect((await parseTopics('\n\n  <top>\n<num> 1\n<title> t\n</top>', 'queries.tsv')).format).toBe('trec-sgml');
    expect((await parseTopics('1\tt\n', 'topics.xml')).format).toBe('tsv');
    const empty = await inputError(parseTopics('\n \n', 'queries.tsv'));
    expect(empty.reason).toMatch(/found none/);
    const textFirst = await inputError(parseTopics('<?xml version="1.0"?>\nhello <topics>', 'x.xml'));
    expect([textFirst.line, textFirst.reason]).toEqual([2, 'expected <top> or <topics>, found text "hello"']);
  });
});
