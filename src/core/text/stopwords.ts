/**
 * The RAGFlip stop list: the same 43 words are removed from documents and queries on every corpus
 * (RAGFlip paper §3; `STOP` in the reference scripts examples/{nq,hotpot_full,fiqa}_flips.py).
 * Matching is exact on the already lowercased token.
 */
export const RAGFLIP_STOP_WORD_LIST: readonly string[] = Object.freeze([
  'the', 'a', 'an', 'of', 'in', 'to', 'and', 'is', 'are', 'was', 'were', 'for', 'on', 'that', 'this',
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'did', 'does', 'do', 'with',
  'from', 'by', 'or', 'as', 'at', 'be', 'been', 'it', 'its', 'their', 'his', 'her', 'they', 'them', 'there',
]);

export const RAGFLIP_STOP_WORDS: ReadonlySet<string> = new Set(RAGFLIP_STOP_WORD_LIST);
