/** The analysis views: Svelte components, their formatters, and the depth plot for exports. */
export { default as AnalysisPanel } from './AnalysisPanel.svelte';
export { default as AnalysisControls } from './AnalysisControls.svelte';
export { default as TransitionMatrix } from './TransitionMatrix.svelte';
export { default as FlipTable } from './FlipTable.svelte';
export { default as DepthPlot } from './DepthPlot.svelte';
export { default as HybridsTable } from './HybridsTable.svelte';
export { default as StrataTable } from './StrataTable.svelte';
export { default as PairedTable } from './PairedTable.svelte';
export { default as MetricsTable } from './MetricsTable.svelte';
export * from './format.ts';
export { parseDepthList, depthListText, type DepthParse } from './depths.ts';
export { buildDepthPlot, depthPlotSvg, depthPlotPoints, candidateNames, CANDIDATE_COLORS, type DepthPlotOptions, type DepthPoint } from './depth-plot.ts';
export { serializeSvg, plotFileName, svgSize, svgDataUrl, svgToPng, PngExportError } from './plot-export.ts';
