export { wilson, Z_95, UNDEFINED_ESTIMATE, type Estimate } from './wilson.ts';
export { netGainInterval } from './net-gain.ts';
export { exactMcNemar } from './mcnemar.ts';
export { holm } from './holm.ts';
