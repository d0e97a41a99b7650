/**
 * A small, hand-made English WordPiece vocabulary and the Hugging Face tokenizer files around it.
 *
 * Every lowercase ASCII word tokenizes without [UNK]: single letters and digits exist both word-initial
 * and as `##` continuations, and every ASCII punctuation character is a token (BertPreTokenizer splits
 * punctuation off). Common words and suffixes make ordinary text tokenize into a few pieces per word.
 */

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

/** Token ids of the special tokens: they come first, in this order, in every generated vocabulary. */
export const SPECIAL_IDS: Readonly<Record<SpecialToken, number>> = {
  '[PAD]': 0,
  '[UNK]': 1,
  '[CLS]': 2,
  '[SEP]': 3,
  '[MASK]': 4,
};

const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];
// Non-ASCII symbols that survive BertNormalizer (accents are stripped, these are not) and turn up in
// scientific English.
const UNICODE_SYMBOLS = [...'‘’“”–—…°±×÷µαβγδεκλμπστχω'];
const DIGITS = [...'0123456789'];
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];

// Deliberately not "tides": tests rely on it splitting into "tide" + "##s".
export const WORDS = `
the of and to in is was for on that with as by at from it be are this an or which were has have had not
but their its they been also can more one two three first new than other all some may into these after
only between most such when who over about there would both used during however use while where many
then each through under what so we he she his her them our you your i my me do does did no yes if out
up down very well much any how could should will just like than make made time year years day days
people world hello goodbye water sea tide ocean wave river rain sun moon light dark night morning
house home city country state government school student students teacher book books word words text
query queries document documents search result results rank ranking score model models data set test
study studies cell cells protein proteins gene genes human patient patients disease diseases cancer
risk treatment effect effects increase increased decrease reduced level levels high low higher lower
associated association analysis clinical trial trials group groups control compared significant
evidence expression activity function role response factor factors blood brain heart virus infection
drug drugs dose mice mouse rate rates age women men children health care hospital death mortality
survival growth tumor tumour therapy vaccine immune cause caused causes lead leads show shows shown
found find finding known new old large small long short good bad better best great little big same
different important common possible early late recent before after again against among around because
even never always often still without within across along number part parts way ways case cases end
life work works world system systems process method methods change changes question answer problem
information science scientific research paper review report claim claims true false support supports
red green blue black white color water fire air earth food energy power money market price company
`;

const SUFFIXES = `
s es ed ing ly er ers est ion ions tion tions sion ment ments ness al ial ic ical ive ous ious able ible
ity ty y ies en ize izes ized ise ised ation ations ful less ist ists ism ance ence ant ent ate ated
ates ating or ors ry ary ory ure ward wards age ship hood like
`;

function splitWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length > 0);
}

/** Pieces of two or three letters, word-initial then `##`, in a fixed order: the filler for large vocabularies. */
function* fillerPieces(): Generator<string> {
  for (const length of [2, 3, 4]) {
    const total = LETTERS.length ** length;
    for (let n = 0; n < total; n++) {
      let piece = '';
      for (let k = n, i = 0; i < length; i++, k = Math.floor(k / LETTERS.length)) {
        piece = (LETTERS[k % LETTERS.length] as string) + piece;
      }
      yield piece;
      yield `##${piece}`;
    }
  }
}

/**
 * The vocabulary, index = token id. Without `size` it is the hand-made base (about 500 pieces); with a
 * larger `size` (BERT-base uses 30522) it is padded with generated letter pieces, which keeps the base ids
 * unchanged.
 */
export function buildWordPieceVocab(size?: number): string[] {
  const vocab: string[] = [];
  const seen = new Set<string>();
  const add = (piece: string): void => {
    if (seen.has(piece)) return;
    seen.add(piece);
    vocab.push(piece);
  };
  for (const t of SPECIAL_TOKENS) add(t);
  for (const c of [...PUNCTUATION, ...UNICODE_SYMBOLS, ...DIGITS, ...LETTERS]) add(c);
  for (const c of [...DIGITS, ...LETTERS]) add(`##${c}`);
  for (const w of splitWords(WORDS)) add(w);
  for (const s of splitWords(SUFFIXES)) add(`##${s}`);
  if (size === undefined) return vocab;
  if (size < vocab.length) throw new Error(`vocabulary size ${size} is below the base vocabulary (${vocab.length})`);
  for (const piece of fillerPieces()) {
    if (vocab.length >= size) break;
    add(piece);
  }
  if (vocab.length < size) throw new Error(`cannot generate ${size} vocabulary pieces`);
  return vocab;
}

export interface BertTokenizerFileOptions {
  /** `model_max_length` in tokenizer_config.json. */
  readonly modelMaxLength: number;
}

/** A tokenizer.json `added_tokens` entry for a special token. */
export const addedToken = (content: string, id: number) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/**
 * The Hugging Face tokenizer files of an uncased BERT tokenizer over `vocab`, as file name → contents:
 * `tokenizer.json` (the fast-tokenizer format transformers.js reads), `tokenizer_config.json`,
 * `special_tokens_map.json` and `vocab.txt` (for the Python slow tokenizer).
 */
export function bertTokenizerFiles(vocab: readonly string[], opts: BertTokenizerFileOptions): Record<string, string> {
  const vocabMap: Record<string, number> = {};
  vocab.forEach((piece, id) => {
    vocabMap[piece] = id;
  });
  for (const t of SPECIAL_TOKENS) {
    if (vocabMap[t] !== SPECIAL_IDS[t]) throw new Error(`vocabulary must have ${t} at id ${SPECIAL_IDS[t]}`);
  }
  const special = (id: string) => ({ id, ids: [vocabMap[id] as number], tokens: [id] });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t) => addedToken(t, SPECIAL_IDS[t])),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: vocabMap,
    },
  };
  const added_tokens_decoder: Record<string, object> = {};
  for (const t of SPECIAL_TOKENS) {
    const { id: _id, ...rest } = addedToken(t, SPECIAL_IDS[t]);
    added_tokens_decoder[String(SPECIAL_IDS[t])] = rest;
  }
  const tokenizerConfig = {
    added_tokens_decoder,
    clean_up_tokenization_spaces: true,
    cls_token: '[CLS]',
    do_basic_tokenize: true,
    do_lower_case: true,
    mask_token: '[MASK]',
    model_max_length: opts.modelMaxLength,
    never_split: null,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
    unk_token: '[UNK]',
  };
  const specialTokensMap = {
    cls_token: '[CLS]',
    mask_token: '[MASK]',
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    unk_token: '[UNK]',
  };
  return {
    'tokenizer.json': `${JSON.stringify(tokenizer, null, 2)}\n`,
    'tokenizer_config.json': `${JSON.stringify(tokenizerConfig, null, 2)}\n`,
    'special_tokens_map.json': `${JSON.stringify(specialTokensMap, null, 2)}\n`,
    'vocab.txt': `${vocab.join('\n')}\n`,
  };
}
