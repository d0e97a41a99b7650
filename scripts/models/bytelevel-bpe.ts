/**
 * A byte-level BPE tokenizer (the GPT-2 / Qwen / SmolLM family) for the generated decoder: the 256 byte
 * symbols, merges that spell out a fixed English word list (with and without the leading-space marker
 * `Ġ`), and ChatML special tokens with a chat template, as the Hugging Face tokenizer files that
 * transformers.js reads (`tokenizer.json`, `tokenizer_config.json`, `special_tokens_map.json`).
 *
 * Any text round-trips (unknown words fall back to bytes); common words are one or a few tokens, so a
 * ten-passage prompt stays within the fixture's context.
 */
import { addedToken, WORDS } from './wordpiece-vocab.ts';

/** ChatML, as Qwen2.5-Instruct uses; ids follow the byte and merge tokens. */
export const CHAT_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

/**
 * The chat template (Jinja, the subset transformers.js's @huggingface/jinja renders): ChatML turns, then
 * the assistant header when `add_generation_prompt` is set. The same shape as Qwen2.5's, without tools.
 */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 onwards. */
export function byteToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const table = new Array<string>(256);
  for (const b of printable) table[b] = String.fromCodePoint(b);
  let next = 0;
  for (let b = 0; b < 256; b++) {
    if (table[b] === undefined) table[b] = String.fromCodePoint(256 + next++);
  }
  return table;
}

export interface ByteLevelBpe {
  /** Token strings, index = id: 256 bytes, merged pieces, then {@link CHAT_SPECIAL_TOKENS}. */
  readonly vocabulary: readonly string[];
  /** Merge rules in rank order, `"left right"`. */
  readonly merges: readonly string[];
  /** Special token → id. */
  readonly specialIds: Readonly<Record<(typeof CHAT_SPECIAL_TOKENS)[number], number>>;
}

/**
 * The vocabulary and merges; deterministic. With `size` (GPT-2 has 50,257 tokens) the vocabulary is padded
 * with letter-sequence pieces (two, three, four letters, bare and after a space), keeping the base ids.
 */
export function buildByteLevelBpe(size?: number): ByteLevelBpe {
  const bytes = byteToUnicode();
  const vocabulary = [...bytes];
  const known = new Set(vocabulary);
  const merges: string[] = [];
  const encoder = new TextEncoder();
  const target = size === undefined ? Number.POSITIVE_INFINITY : size - CHAT_SPECIAL_TOKENS.length;
  const spell = (form: string): void => {
    const symbols = Array.from(encoder.encode(form), (b) => bytes[b] as string);
    let piece = symbols[0] as string;
    for (const symbol of symbols.slice(1)) {
      const merged = piece + symbol;
      if (!known.has(merged)) {
        if (vocabulary.length >= target) return;
        known.add(merged);
        vocabulary.push(merged);
        merges.push(`${piece} ${symbol}`);
      }
      piece = merged;
    }
  };
  // Spaced forms first: their merges then outrank the inner pairs of bare words, so " the" is one token.
  const words = WORDS.split(/\s+/).filter((w) => w.length > 0);
  for (const word of words) spell(` ${word}`);
  for (const word of words) spell(word);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let length = 2; size !== undefined && length <= 4 && vocabulary.length < target; length++) {
    for (let n = 0; n < letters.length ** length && vocabulary.length < target; n++) {
      let piece = '';
      for (let k = n, i = 0; i < length; i++, k = Math.floor(k / letters.length)) piece = letters[k % letters.length] + piece;
      spell(piece);
      spell(` ${piece}`);
    }
  }
  if (vocabulary.length < target && size !== undefined) throw new Error(`cannot generate ${size} byte-level pieces`);
  const specialIds = {} as Record<(typeof CHAT_SPECIAL_TOKENS)[number], number>;
  for (const t of CHAT_SPECIAL_TOKENS) {
    specialIds[t] = vocabulary.length;
    vocabulary.push(t);
  }
  return { vocabulary, merges, specialIds };
}

const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };

export interface ChatTokenizerFileOptions {
  readonly modelMaxLength: number;
  /** Leave `chat_template` out (for the "reader without a chat template" error). */
  readonly withoutChatTemplate?: boolean;
}

/** The tokenizer files, name → contents. End of turn `<|im_end|>` is the EOS token, `<|endoftext|>` the pad. */
export function chatTokenizerFiles(bpe: ByteLevelBpe, opts: ChatTokenizerFileOptions): Record<string, string> {
  const vocab: Record<string, number> = {};
  bpe.vocabulary.forEach((piece, id) => {
    vocab[piece] = id;
  });
  const added = CHAT_SPECIAL_TOKENS.map((content) => addedToken(content, bpe.specialIds[content]));
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: BYTE_LEVEL,
    post_processor: { ...BYTE_LEVEL, trim_offsets: false },
    decoder: BYTE_LEVEL,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: bpe.merges,
    },
  };
  const added_tokens_decoder: Record<string, object> = {};
  for (const { id, ...rest } of added) added_tokens_decoder[String(id)] = rest;
  const tokenizerConfig = {
    add_prefix_space: false,
    added_tokens_decoder,
    bos_token: null,
    ...(opts.withoutChatTemplate ? {} : { chat_template: CHATML_TEMPLATE }),
    clean_up_tokenization_spaces: false,
    eos_token: '<|im_end|>',
    errors: 'replace',
    model_max_length: opts.modelMaxLength,
    pad_token: '<|endoftext|>',
    split_special_tokens: false,
    tokenizer_class: 'GPT2Tokenizer',
    unk_token: null,
  };
  return {
    'tokenizer.json': `${JSON.stringify(tokenizer)}\n`,
    'tokenizer_config.json': `${JSON.stringify(tokenizerConfig, null, 2)}\n`,
    'special_tokens_map.json': `${JSON.stringify({ eos_token: '<|im_end|>', pad_token: '<|endoftext|>' }, null, 2)}\n`,
  };
}
