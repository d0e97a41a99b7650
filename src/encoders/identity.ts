/**
 * Cache keys. An embedding is valid only for the exact model, revision, dtype, pooling, prefix, length
 * limit and sparsification that produced it, and for the exact text: every one of those is in the key, so a
 * change is a miss, never a stale hit. Keys use the text's hash, not a document id, so the same passage in
 * two corpora is encoded once.
 */
import { sha256Hex } from '../core/sha256.ts';
import type { EncoderDtype, EncoderRecipe } from '../core/encoder-recipe.ts';

/**
 * Everything about an encoding that changes its vectors: the encoder's recipe with the one prefix its role
 * uses, and the role.
 */
export interface EncodingIdentity extends Omit<EncoderRecipe, 'queryPrefix' | 'passagePrefix'> {
  readonly prefix: string;
  readonly role: 'query' | 'passage';
}

export function encodingIdentity(config: EncoderRecipe, role: 'query' | 'passage', dtype: EncoderDtype = config.dtype): EncodingIdentity {
  return {
    model: config.model,
    revision: config.revision,
    dtype,
    pooling: config.pooling,
    normalize: config.normalize,
    prefix: role === 'query' ? config.queryPrefix : config.passagePrefix,
    maxLength: config.maxLength,
    sparseTopK: config.sparseTopK,
    role,
  };
}

/** Canonical JSON (fixed key order) → SHA-256: the key of one encoding configuration. */
export async function encodingKey(id: EncodingIdentity): Promise<string> {
  const canonical = JSON.stringify([
    id.model,
    id.revision,
    id.dtype,
    id.pooling,
    id.normalize,
    id.prefix,
    id.maxLength,
    id.sparseTopK,
    id.role,
  ]);
  return (await sha256Hex(canonical)).slice(0, 32);
}

/** Text hashes for many texts (the digest is async; batches run concurrently). */
export function textKeys(texts: readonly string[]): Promise<string[]> {
  return Promise.all(texts.map((t) => sha256Hex(t)));
}
