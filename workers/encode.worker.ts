/**
 * Encode worker: encoders and readers on onnxruntime-web (WebGPU or WASM) behind comlink, so models never
 * block the page. The calls are built by `createEncodeApi` (src/worker/encode-api.ts), which tests expose on a
 * MessageChannel in Node instead. What only a browser build has is given here: ONNX Runtime's wasm binary and
 * its JS glue, emitted by Vite (`?url`) and served from the app's own origin (transformers.js would otherwise
 * point onnxruntime-web at a public CDN), and the onnxruntime-web module for dense search.
 */
import { expose } from 'comlink';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortGlueUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
// The same onnxruntime-web module transformers.js uses (Vite dedupes it), so one wasm and one env.
import * as ort from 'onnxruntime-web/webgpu';
import type { OrtLike } from '../src/encoders/dense-onnx.ts';
import { createEncodeApi } from '../src/worker/encode-api.ts';
import { installErrorTransfer } from '../src/lab/errors.ts';

installErrorTransfer();
expose(createEncodeApi({ ort: ort as unknown as OrtLike, wasmPaths: { wasm: ortWasmUrl, mjs: ortGlueUrl } }));
