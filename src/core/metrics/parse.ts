/**
 * Measure names from the command line or UI → MeasureSpec. Accepts trec_eval `-m` syntax
 * (`P.5,10`, `ndcg_cut`, `official`, `all_trec`, repeated) and ir_measures-style aliases (`nDCG@10`,
 * `RR@10`, `AP`, `R@100`, …).
 *
 * One deliberate difference from trec_eval: when a cutoff measure is named several times with explicit
 * cutoffs (`-m P.5 -m P.10`, or `P@5 P@10`), the cutoffs are merged (P_5 and P_10); trec_eval would keep
 * the first list only. A bare name or set (`P`, `official`) uses the defaults only if no explicit
 * cutoffs are given for that measure — as in trec_eval.
 */
import { formatFixed } from './printf.ts';
import type { MeasureDef, MeasureParams } from './measure.ts';
import { findMeasure, inRelease, MEASURES, measureOrder, nicknames } from './registry.ts';
import { DEFAULT_TREC_EVAL_VERSION, type TrecEvalVersion } from './version.ts';

/** A requested measure: trec_eval root name plus its parameter text (null = the measure's defaults). */
export interface MeasureSpec {
  readonly measure: string;
  readonly params: string | null;
}

/** ir_measures-style names with an @cutoff → trec_eval measure with that cutoff (keys lower-case). */
const CUTOFF_ALIASES: Readonly<Record<string, string>> = {
  ndcg: 'ndcg_cut',
  rr: 'recip_rank_cut',
  mrr: 'recip_rank_cut',
  r: 'recall',
  recall: 'recall',
  p: 'P',
  ap: 'map_cut',
  map: 'map_cut',
  ncg: 'ncg_cut',
  success: 'success',
};

/** ir_measures-style names without a cutoff → trec_eval measure (keys lower-case). */
const PLAIN_ALIASES: Readonly<Record<string, string>> = {
  ndcg: 'ndcg',
  rr: 'recip_rank',
  mrr: 'recip_rank',
  ap: 'map',
  map: 'map',
  rprec: 'Rprec',
  'r-prec': 'Rprec',
  bpref: 'bpref',
  infap: 'infAP',
  numq: 'num_q',
  numret: 'num_ret',
  numrel: 'num_rel',
  numrelret: 'num_rel_ret',
};

function validNames(version: TrecEvalVersion): string {
  return [
    `trec_eval ${version} measures: ${MEASURES.filter((m) => m.origin !== 'fliplab' && inRelease(m, version))
      .map((m) => m.name)
      .join(', ')}`,
    `fliplab extensions: ${MEASURES.filter((m) => m.origin === 'fliplab')
      .map((m) => m.name)
      .join(', ')}`,
    `sets: ${Object.keys(nicknames(version)).join(', ')}`,
    'parameters: name.params, e.g. P.5,10 ndcg_cut.10 iprec_at_recall.0.1,0.5 ndcg.1=3,2=9',
    'aliases: nDCG, nDCG@k, RR, RR@k (MRR@k), AP, AP@k, P@k, R@k, NCG@k, Success@k, Rprec (R-Prec), bpref, infAP',
  ].join('\n  ');
}

function unknown(spec: string, why: string, version: TrecEvalVersion): Error {
  return new Error(`unknown measure ${JSON.stringify(spec)}: ${why}. Valid names:\n  ${validNames(version)}`);
}

/** atol / strtol: optional sign and leading digits ("23.4" → 23); NaN when there are none. */
function parseLeadingInt(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m ? Number.parseInt(m[1]!, 10) : Number.NaN;
}

/** atof: the longest leading decimal number ("" or junk → 0, like C). */
function parseLeadingFloat(s: string): number {
  const v = Number.parseFloat(s);
  return Number.isNaN(v) ? 0 : v;
}

/** Parse a measure's parameter text as trec_eval's init procedures would (meas_init.c). */
export function parseParams(def: MeasureDef, text: string): MeasureParams {
  const parts = text.split(',');
  switch (def.params) {
    case 'none':
      return { values: new Float64Array(0), pairs: [] };
    case 'long-cutoffs': {
      const values = Float64Array.from(parts, parseLeadingInt).sort();
      if (values.some((v) => !(v > 0))) throw new Error(`measure ${def.name}: cutoffs must be positive integers, got "${text}"`);
      for (let i = 1; i < values.length; i++)
        if (values[i] === values[i - 1]) throw new Error(`measure ${def.name}: duplicate cutoff in "${text}"`);
      return { values, pairs: [] };
    }
    case 'double-cutoffs': {
      const values = Float64Array.from(parts, parseLeadingFloat).sort();
      for (let i = 1; i < values.length; i++)
        if (values[i] === values[i - 1]) throw new Error(`measure ${def.name}: duplicate cutoff in "${text}"`);
      return { values, pairs: [] };
    }
    case 'double-params':
      return { values: Float64Array.from(parts, parseLeadingFloat), pairs: [] };
    case 'pairs': {
      if (text === '') return { values: new Float64Array(0), pairs: [] };
      const pairs = parts.map((p) => {
        const eq = p.indexOf('=');
        if (eq <= 0 || p.indexOf('=', eq + 1) >= 0)
          throw new Error(`measure ${def.name}: malformed pair parameters in "${text}" (expected level=gain,…)`);
        return { level: p.slice(0, eq), gain: parseLeadingFloat(p.slice(eq + 1)) };
      });
      return { values: new Float64Array(0), pairs };
    }
  }
}

/** The output names a measure prints with these parameters (`P_5`, `iprec_at_recall_0.10`, `ndcg_1=3`). */
export function outputNames(def: MeasureDef, explicit: string | null): string[] {
  const text = explicit ?? def.defaultParams;
  switch (def.params) {
    case 'none':
      return [def.name];
    case 'long-cutoffs':
      return Array.from(parseParams(def, text).values, (k) => `${def.name}_${k}`);
    case 'double-cutoffs':
      return Array.from(parseParams(def, text).values, (x) => `${def.name}_${formatFixed(x, 2)}`);
    case 'double-params':
    case 'pairs':
      return [explicit === null ? def.name : `${def.name}_${explicit}`];
  }
}

interface Pending {
  def: MeasureDef;
  /** Explicit parameter texts in request order. */
  explicit: string[];
}

function request(pending: Map<string, Pending>, name: string, params: string | null, spec: string, version: TrecEvalVersion): void {
  const def = findMeasure(name);
  if (!def) throw unknown(spec, `no measure named ${JSON.stringify(name)}`, version);
  if (!inRelease(def, version)) {
    throw new Error(
      `measure ${JSON.stringify(spec)} is not in trec_eval ${version} (${def.name} was added in trec_eval 10.0); ` +
        'evaluate with trec_eval 10.0 (the default) to use it',
    );
  }
  if (params !== null && def.params === 'none') throw unknown(spec, `${def.name} takes no parameters`, version);
  let p = pending.get(def.name);
  if (!p) pending.set(def.name, (p = { def, explicit: [] }));
  if (params !== null) {
    parseParams(def, params); // validate now, so errors name the spec the user wrote
    p.explicit.push(params);
  }
}

function resolveAlias(spec: string, pending: Map<string, Pending>, version: TrecEvalVersion): boolean {
  const m = /^([A-Za-z][A-Za-z-]*)(?:@(\d+))?$/.exec(spec);
  if (!m) return false;
  const key = m[1]!.toLowerCase();
  if (m[2] !== undefined) {
    const target = CUTOFF_ALIASES[key];
    if (!target) return false;
    if (Number(m[2]) <= 0) throw unknown(spec, 'cutoff must be a positive integer', version);
    request(pending, target, String(Number(m[2])), spec, version);
    return true;
  }
  const target = PLAIN_ALIASES[key];
  if (!target) return false;
  request(pending, target, null, spec, version);
  return true;
}

/**
 * Parse measure requests (each string may hold several, whitespace separated) into one spec per
 * measure, in trec_eval print order. Sets (`all_trec`, `official`, `set`) expand as in `version`, and a
 * measure that release lacks is refused. Throws an Error listing the valid names for anything unknown.
 */
export function parseMeasures(specs: readonly string[], version: TrecEvalVersion = DEFAULT_TREC_EVAL_VERSION): MeasureSpec[] {
  const pending = new Map<string, Pending>();
  const sets = nicknames(version);
  for (const raw of specs) {
    for (const spec of raw.split(/\s+/).filter((s) => s.length > 0)) {
      const dot = spec.indexOf('.');
      const name = dot < 0 ? spec : spec.slice(0, dot);
      const params = dot < 0 ? null : spec.slice(dot + 1);
      if (params === '') throw unknown(spec, 'empty parameter list after "."', version);
      const set = sets[name];
      if (set) {
        for (const n of set) request(pending, n, null, spec, version);
        continue;
      }
      if (findMeasure(name)) {
        request(pending, name, params, spec, version);
        continue;
      }
      if (params === null && resolveAlias(spec, pending, version)) continue;
      throw unknown(spec, `no measure named ${JSON.stringify(name)}`, version);
    }
  }
  return [...pending.values()]
    .sort((a, b) => measureOrder(a.def.name) - measureOrder(b.def.name))
    .map(({ def, explicit }) => ({ measure: def.name, params: mergeParams(def, explicit) }));
}

function mergeParams(def: MeasureDef, explicit: readonly string[]): string | null {
  if (explicit.length === 0) return null;
  if (explicit.length === 1) return explicit[0]!;
  if (def.params === 'long-cutoffs' || def.params === 'double-cutoffs') {
    const all = new Set<number>();
    for (const e of explicit) for (const v of parseParams(def, e).values) all.add(v);
    return [...all].sort((a, b) => a - b).join(',');
  }
  const distinct = [...new Set(explicit)];
  if (distinct.length > 1)
    throw new Error(`measure ${def.name}: conflicting parameters ${distinct.map((d) => JSON.stringify(d)).join(' and ')}`);
  return distinct[0]!;
}
