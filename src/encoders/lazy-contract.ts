/**
 * The guard on the lazy-weights path (lazy-weights.ts): a self-test of onnxruntime-web's mounted-file contract.
 *
 * The lazy path relies on an internal of onnxruntime-web: a `Uint8Array` given as external data is mounted as it
 * is, and its loader asks of it only `byteLength` and `subarray(offset, offset + length)`. An upgrade may change
 * that (read the view's own buffer, say, as onnxruntime-node does), and then every lazy load fails, or worse,
 * gets wrong weights. So before the first lazy load the encode worker runs one tiny session the same way: a
 * two-node graph, y = (x + a) · b, whose initializers `a` and `b` are external data in the model's own file,
 * mounted as a `lazyBytes` view over a Blob read with the worker's `ReadSync`, exactly as a model's weights
 * are. The output must equal the values computed here (every one exact in float32). On any failure the lazy
 * path stays off for that worker and model files are read into memory (the in-memory rewrite of
 * onnx-weights.ts), with the reason in the load result. The version is checked too: one other than the version
 * the browser e2e ran is still self-tested (and used when it passes); the load result says so.
 */
import { errorMessage } from '../core/error-message.ts';
import { lazyBytes, type ReadSync } from './lazy-weights.ts';
import { Writer } from './onnx-proto.ts';
import { externalizeGraph } from './onnx-weights.ts';

/**
 * The onnxruntime-web whose mounted-file reads the browser e2e ran on WASM and WebGPU. package.json pins it, and
 * a unit test holds the two equal, so an upgrade changes this line on purpose, after the e2e has run.
 */
export const LAZY_CONTRACT_TESTED_VERSION = '1.31.0-dev.20260914-8d85527a0';

/** What the self-test needs of an ONNX Runtime module (onnxruntime-web; onnxruntime-node has it too). */
export interface SelfTestRuntime {
  readonly InferenceSession: { create: (...args: never[]) => Promise<unknown> };
  readonly Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => unknown;
  readonly env?: { readonly versions?: { readonly web?: string } };
}

export interface LazyContractCheck {
  /** The runtime read the self-test's weights through the view, and they were the right bytes. */
  readonly ok: boolean;
  /** onnxruntime-web's version as it reports it (`env.versions.web`); null when it does not. */
  readonly version: string | null;
  /** Why the lazy path is off (not ok), or what is unusual when it is on (an untested version); null otherwise. */
  readonly reason: string | null;
}

interface SelfTestSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: unknown }>>;
  release?(): Promise<void>;
}

/** Elements of each self-test tensor: 2 KiB of weights, each initializer past onnx-weights' 1 KiB threshold. */
const N = 256;
const LOCATION = 'fliplab-lazy-contract-self-test.bin';
const input = Float32Array.from({ length: N }, (_, i) => (i % 5) - 2);
const addend = Float32Array.from({ length: N }, (_, i) => i + 0.5);
const factor = Float32Array.from({ length: N }, (_, i) => 1 + (i % 7) * 0.25);

/**
 * The self-test's model file, its weights inline as a hub file holds them: y = (x + a) · b over [N] floats.
 * Exported for tests whose `ReadSync` cannot read a Blob (Node has no FileReaderSync).
 */
export function lazyContractSelfTestFile(): Uint8Array {
  const bytesOf = (a: Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  // ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1 (FLOAT = 1), shape 2: { dim 1: { dim_value 1 } } } } }
  const valueInfo = (w: Writer, field: number, name: string) =>
    w.message(field, (v) =>
      v.string(1, name).message(2, (t) => t.message(1, (tt) => tt.int(1, 1).message(2, (s) => s.message(1, (d) => d.int(1, N))))),
    );
  // ModelProto { ir_version 1, graph 7, opset_import 8 }; GraphProto { node 1, name 2, initializer 5, input 11, output 12 }
  return new Writer()
    .int(1, 8)
    .message(8, (o) => o.string(1, '').int(2, 13))
    .message(7, (g) => {
      g.message(1, (n) => n.string(1, 'x').string(1, 'a').string(2, 's').string(4, 'Add'));
      g.message(1, (n) => n.string(1, 's').string(1, 'b').string(2, 'y').string(4, 'Mul'));
      g.string(2, 'fliplab_lazy_contract_self_test');
      // TensorProto { dims 1, data_type 2, name 8, raw_data 9 }
      for (const [name, values] of [
        ['a', addend],
        ['b', factor],
      ] as const)
        g.message(5, (t) => t.int(1, N).int(2, 1).string(8, name).bytes(9, bytesOf(values)));
      valueInfo(g, 11, 'x');
      valueInfo(g, 12, 'y');
    })
    .finish();
}

/**
 * Runs the self-test described above on `ort` with `readSync` (the worker's FileReaderSync) on the execution
 * provider `executionProviders` names (the CPU one: the contract is JavaScript's side, the same for WebGPU).
 * Never throws: a failure is an answer.
 */
export async function checkLazyContract(
  ort: SelfTestRuntime,
  readSync: ReadSync,
  options: { readonly executionProviders?: readonly string[] } = {},
): Promise<LazyContractCheck> {
  const version = ort.env?.versions?.web ?? null;
  const untested = version !== LAZY_CONTRACT_TESTED_VERSION;
  const runtime = `onnxruntime-web ${version ?? '(version unknown)'}${untested ? ` (tested: ${LAZY_CONTRACT_TESTED_VERSION})` : ''}`;
  const failed = (why: string): LazyContractCheck => ({
    ok: false,
    version,
    reason: `${runtime} failed the self-test of reading weights from a stored file (${why}): model files are read into memory instead`,
  });
  let session: SelfTestSession | undefined;
  try {
    const model = lazyContractSelfTestFile();
    const moved = externalizeGraph(model, { location: LOCATION })!;
    const view = lazyBytes(new Blob([model as Uint8Array<ArrayBuffer>]), readSync);
    const create = ort.InferenceSession.create as unknown as (model: Uint8Array, options: object) => Promise<SelfTestSession>;
    session = await create.call(ort.InferenceSession, moved.graph, {
      ...(options.executionProviders ? { executionProviders: [...options.executionProviders] } : {}),
      externalData: [{ path: LOCATION, data: view }],
    });
    const out = await session.run({ x: new ort.Tensor('float32', input, [N]) });
    const y = out.y?.data;
    if (!(y instanceof Float32Array) || y.length !== N) return failed('no output of the expected shape');
    const wrong = y.findIndex((v, i) => v !== Math.fround(Math.fround(input[i]! + addend[i]!) * factor[i]!));
    if (wrong >= 0) return failed(`wrong weights read: element ${wrong} is ${y[wrong]}`);
  } catch (error) {
    return failed(errorMessage(error));
  } finally {
    await session?.release?.().catch(() => {});
  }
  return {
    ok: true,
    version,
    reason: untested ? `${runtime} is not the version tested; it passed the self-test of reading weights from a stored file` : null,
  };
}
