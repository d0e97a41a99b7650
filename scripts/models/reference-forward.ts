/**
 * The test oracle: a plain-loop, float64 forward pass of the generated BERT, reading the generator's
 * in-memory weights (never the ONNX file), written from the Hugging Face definition (modeling_bert.py)
 * rather than from the ONNX graph, so a wiring mistake in either shows up as a mismatch.
 */
import { MASK_FILL, type DenseWeights, type LayerNormWeights, type TinyBertModel } from './tiny-bert.ts';
import type { TinyGpt2Model } from './tiny-gpt2.ts';

export interface ReferenceInput {
  /** [batch][sequence]; all rows the same length. */
  readonly inputIds: readonly (readonly number[])[];
  /** Default all ones. */
  readonly attentionMask?: readonly (readonly number[])[];
  /** Default all zeros. */
  readonly tokenTypeIds?: readonly (readonly number[])[];
}

/** A row-major tensor. */
export interface ReferenceTensor {
  readonly dims: readonly number[];
  readonly data: Float64Array;
}

export interface ReferenceOutput {
  /** [batch, sequence, hidden]: the encoder output (for BertForMaskedLM too, before the head). */
  readonly lastHiddenState: ReferenceTensor;
  /** [batch, sequence, vocab]: only for the MLM head. */
  readonly logits?: ReferenceTensor;
}

/**
 * erf(x) via the complementary error function's Chebyshev fit (Numerical Recipes, 2nd ed., §6.2 `erfcc`),
 * fractional error below 1.2e-7 everywhere: far inside the 1e-4 tolerance the tests use.
 */
export function erf(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc : erfc - 1;
}

const gelu = (x: number): number => 0.5 * x * (1 + erf(x / Math.SQRT2));

/** Row-wise `x·W + b` for x [rows, in]. */
export function linear(x: Float64Array, rows: number, d: DenseWeights): Float64Array {
  const { inFeatures: n, outFeatures: m, weight, bias } = d;
  const out = new Float64Array(rows * m);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < m; j++) {
      let sum = bias[j] as number;
      for (let i = 0; i < n; i++) sum += (x[r * n + i] as number) * (weight[i * m + j] as number);
      out[r * m + j] = sum;
    }
  }
  return out;
}

/** LayerNorm over the last dimension (biased variance, as torch.nn.LayerNorm). */
export function layerNorm(x: Float64Array, rows: number, width: number, n: LayerNormWeights, eps: number): Float64Array {
  const out = new Float64Array(rows * width);
  for (let r = 0; r < rows; r++) {
    let mean = 0;
    for (let i = 0; i < width; i++) mean += x[r * width + i] as number;
    mean /= width;
    let variance = 0;
    for (let i = 0; i < width; i++) variance += ((x[r * width + i] as number) - mean) ** 2;
    variance /= width;
    const inv = 1 / Math.sqrt(variance + eps);
    for (let i = 0; i < width; i++) {
      out[r * width + i] = ((x[r * width + i] as number) - mean) * inv * (n.gamma[i] as number) + (n.beta[i] as number);
    }
  }
  return out;
}

export function add(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((v, i) => v + (b[i] as number));
}

function rowOf(rows: readonly (readonly number[])[] | undefined, b: number, s: number, fallback: number): number {
  return rows === undefined ? fallback : (rows[b]?.[s] ?? Number.NaN);
}

/** Run the model on a rectangular batch. */
export function referenceForward(model: TinyBertModel, input: ReferenceInput): ReferenceOutput {
  const { config: c, weights: w } = model;
  const batch = input.inputIds.length;
  const seq = input.inputIds[0]?.length ?? 0;
  const h = c.hiddenSize;
  const headSize = h / c.heads;
  if (input.inputIds.some((row) => row.length !== seq)) throw new Error('reference-forward: ragged batch');
  if (seq > c.maxPositions) throw new Error('reference-forward: sequence longer than maxPositions');

  // Each sequence is independent; run them one at a time as [seq, hidden] matrices.
  const hiddenOut = new Float64Array(batch * seq * h);
  const logitsOut = c.head === 'mlm' ? new Float64Array(batch * seq * c.vocabSize) : undefined;
  for (let b = 0; b < batch; b++) {
    const emb = new Float64Array(seq * h);
    for (let s = 0; s < seq; s++) {
      const id = rowOf(input.inputIds, b, s, 0);
      const type = rowOf(input.tokenTypeIds, b, s, 0);
      if (!(id >= 0 && id < c.vocabSize)) throw new Error(`reference-forward: token id ${id} out of range`);
      for (let i = 0; i < h; i++) {
        emb[s * h + i] =
          (w.wordEmbeddings[id * h + i] as number) +
          (w.positionEmbeddings[s * h + i] as number) +
          (w.tokenTypeEmbeddings[type * h + i] as number);
      }
    }
    let x = layerNorm(emb, seq, h, w.embeddingNorm, c.layerNormEps);
    const maskAdd = Array.from({ length: seq }, (_, s) => (1 - rowOf(input.attentionMask, b, s, 1)) * MASK_FILL);

    for (const layer of w.layers) {
      const q = linear(x, seq, layer.query);
      const k = linear(x, seq, layer.key);
      const v = linear(x, seq, layer.value);
      const context = new Float64Array(seq * h);
      for (let head = 0; head < c.heads; head++) {
        const off = head * headSize;
        for (let i = 0; i < seq; i++) {
          const scores = new Float64Array(seq);
          let max = -Infinity;
          for (let j = 0; j < seq; j++) {
            let dot = 0;
            for (let d = 0; d < headSize; d++) dot += (q[i * h + off + d] as number) * (k[j * h + off + d] as number);
            const score = dot / Math.sqrt(headSize) + (maskAdd[j] as number);
            scores[j] = score;
            if (score > max) max = score;
          }
          let total = 0;
          for (let j = 0; j < seq; j++) {
            const e = Math.exp((scores[j] as number) - max);
            scores[j] = e;
            total += e;
          }
          for (let d = 0; d < headSize; d++) {
            let sum = 0;
            for (let j = 0; j < seq; j++) sum += ((scores[j] as number) / total) * (v[j * h + off + d] as number);
            context[i * h + off + d] = sum;
          }
        }
      }
      const attention = layerNorm(add(linear(context, seq, layer.attentionOutput), x), seq, h, layer.attentionNorm, c.layerNormEps);
      const inner = linear(attention, seq, layer.intermediate).map(gelu);
      x = layerNorm(add(linear(inner, seq, layer.output), attention), seq, h, layer.outputNorm, c.layerNormEps);
    }
    hiddenOut.set(x, b * seq * h);

    if (logitsOut !== undefined) {
      const mlm = w.mlm;
      if (!mlm) throw new Error('reference-forward: mlm head weights missing');
      const t = layerNorm(linear(x, seq, mlm.transform).map(gelu), seq, h, mlm.transformNorm, c.layerNormEps);
      const V = c.vocabSize;
      for (let s = 0; s < seq; s++) {
        for (let token = 0; token < V; token++) {
          let sum = mlm.decoderBias[token] as number;
          for (let i = 0; i < h; i++) sum += (t[s * h + i] as number) * (w.wordEmbeddings[token * h + i] as number);
          logitsOut[(b * seq + s) * V + token] = sum;
        }
      }
    }
  }
  return {
    lastHiddenState: { dims: [batch, seq, h], data: hiddenOut },
    ...(logitsOut !== undefined ? { logits: { dims: [batch, seq, c.vocabSize], data: logitsOut } } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// GPT-2 (tiny-gpt2.ts), from modeling_gpt2.py: no KV cache, the whole sequence each time.

const geluNew = (x: number): number => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

/** Logits [sequence, vocab] for one unpadded sequence. */
export function referenceGpt2Logits(model: TinyGpt2Model, inputIds: readonly number[]): Float64Array {
  const { config: c, weights: w } = model;
  const seq = inputIds.length;
  const h = c.hiddenSize;
  const heads = c.heads;
  const d = h / heads;
  let x: Float64Array = new Float64Array(seq * h);
  inputIds.forEach((id, s) => {
    for (let i = 0; i < h; i++) {
      x[s * h + i] = (w.tokenEmbeddings[id * h + i] as number) + (w.positionEmbeddings[s * h + i] as number);
    }
  });
  for (const layer of w.layers) {
    const qkv = linear(layerNorm(x, seq, h, layer.ln1, c.layerNormEps), seq, layer.attention);
    const at = (s: number, part: number, head: number, i: number): number => qkv[s * 3 * h + part * h + head * d + i] as number;
    const context = new Float64Array(seq * h);
    for (let head = 0; head < heads; head++) {
      for (let s = 0; s < seq; s++) {
        // Causal: keys 0..s.
        const scores = new Float64Array(s + 1);
        let max = Number.NEGATIVE_INFINITY;
        for (let t = 0; t <= s; t++) {
          let dot = 0;
          for (let i = 0; i < d; i++) dot += at(s, 0, head, i) * at(t, 1, head, i);
          scores[t] = dot / Math.sqrt(d);
          max = Math.max(max, scores[t] as number);
        }
        let sum = 0;
        for (let t = 0; t <= s; t++) {
          scores[t] = Math.exp((scores[t] as number) - max);
          sum += scores[t] as number;
        }
        for (let i = 0; i < d; i++) {
          let v = 0;
          for (let t = 0; t <= s; t++) v += ((scores[t] as number) / sum) * at(t, 2, head, i);
          context[s * h + head * d + i] = v;
        }
      }
    }
    x = add(x, linear(context, seq, layer.attentionProjection));
    const inner = linear(layerNorm(x, seq, h, layer.ln2, c.layerNormEps), seq, layer.fc).map(geluNew);
    x = add(x, linear(inner, seq, layer.projection));
  }
  const final = layerNorm(x, seq, h, w.finalNorm, c.layerNormEps);
  const logits = new Float64Array(seq * c.vocabSize);
  for (let s = 0; s < seq; s++) {
    for (let v = 0; v < c.vocabSize; v++) {
      let dot = 0;
      for (let i = 0; i < h; i++) dot += (final[s * h + i] as number) * (w.tokenEmbeddings[v * h + i] as number);
      logits[s * c.vocabSize + v] = dot;
    }
  }
  return logits;
}

export interface ReferenceGreedyStep {
  readonly token: number;
  /** Top logit minus the runner-up: how far this step is from a tie another runtime could break otherwise. */
  readonly margin: number;
}

/** Greedy decoding, recomputing the whole sequence per step; stops after `eos` or `maxNewTokens`. */
export function referenceGreedy(model: TinyGpt2Model, prompt: readonly number[], maxNewTokens: number, eos: number): ReferenceGreedyStep[] {
  const ids = [...prompt];
  const steps: ReferenceGreedyStep[] = [];
  const vocab = model.config.vocabSize;
  while (steps.length < maxNewTokens) {
    const logits = referenceGpt2Logits(model, ids);
    const row = logits.subarray((ids.length - 1) * vocab, ids.length * vocab);
    let best = 0;
    let second = Number.NEGATIVE_INFINITY;
    for (let v = 1; v < vocab; v++) {
      if ((row[v] as number) > (row[best] as number)) {
        second = row[best] as number;
        best = v;
      } else if ((row[v] as number) > second) second = row[v] as number;
    }
    steps.push({ token: best, margin: (row[best] as number) - second });
    ids.push(best);
    if (best === eos) break;
  }
  return steps;
}
