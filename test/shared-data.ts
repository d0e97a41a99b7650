/**
 * Where tests find ../shared/data (BEIR SciFact, TREC DL 2019, trec_eval's fixtures): beside the project,
 * or wherever FLIPLAB_SHARED_DATA points. Read-only; never copied into the repository.
 */
import { join } from 'node:path';

export const SHARED_DATA = process.env.FLIPLAB_SHARED_DATA ?? join(import.meta.dirname, '../../shared/data');
export const SCIFACT_DIR = join(SHARED_DATA, 'scifact');
