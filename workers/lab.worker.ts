/**
 * Lab worker: the engine (src/worker/engine.ts) behind comlink, so parsing a collection, indexing it for
 * BM25, growing encoder runs, preparing flips and measuring runs never block the page. The calls are built
 * by `createLabApi` (src/worker/api.ts), which tests expose on a MessageChannel instead.
 */
import { expose } from 'comlink';
import { installErrorTransfer } from '../src/lab/errors.ts';
import { createLabApi } from '../src/worker/api.ts';

installErrorTransfer();
expose(createLabApi());
