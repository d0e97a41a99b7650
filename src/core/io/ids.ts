import type { DocId, DocIndex, QueryId } from '../types.ts';

// The only place external ids and dense indices are minted. Everything else receives them typed.
export const asDocId = (s: string): DocId => s as DocId;
export const asQueryId = (s: string): QueryId => s as QueryId;
export const asDocIndex = (i: number): DocIndex => i as DocIndex;
