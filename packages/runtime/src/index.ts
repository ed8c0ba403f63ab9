/**
 * k6-triton's k6-compatible runtime on Node, its one public entry: `runTest({ script, ... })` runs a k6
 * script (an esbuild bundle, .js or .ts) with k6's semantics and outputs, and returns k6's exit code and
 * the handleSummary data; `runSupervised` does the same on a worker thread the caller's thread watches
 * (the CLI's `run`). The rest is what the tool shares with the runtime: k6's exit codes, k6's
 * execution-segment grammar, k6's run surface (which options, flags and variables are honoured or refused: the
 * CLI's refusals and docs/runtime-options.md), how scripts are bundled for it, k6's trend histogram and whole-file writes.
 * The types runTest's options and result name are exported with it. The tool imports the runtime only
 * through this module (test/layers/layers.test.ts).
 */
export { runTest, type RunTestOptions, type RunTestResult } from './engine.ts';
export { EXIT } from './exit-codes.ts';
export { type LogSettings, logColors } from './log.ts';
export { SCRIPT_CJS_OPTIONS } from './loader/bundle.ts';
export { sidecarBanner, sidecarPath } from './loader/prebuilt.ts';
export { TrendHistogram } from './metrics/histogram.ts';
export type { OptionOverrides } from './options/index.ts';
export { parseSegment, parseSequence } from './options/segment.ts';
export {
  K6_SURFACE,
  type SurfaceRow,
  flagRow,
  refusalLine,
  refusedEnv,
  refusedFlag,
  refusedOptions,
} from './options/k6-surface.ts';
export { SURFACE_PAGE, surfacePage } from './options/k6-surface-doc.ts';
export { layerShortcuts, parseStage } from './options/shortcuts.ts';
export type { SummaryData } from './summary/data.ts';
export type { SummaryMode } from './summary/text.ts';
export { runSupervised } from './supervisor.ts';
export { parseWorkers, RESERVED_CORES_ENV, WORKERS_ENV } from './workers/plan.ts';
export { WriteError, writeWholeSync } from './write-whole.ts';
export { archiveOf, collectTest } from './archive/collect.ts';
export { k6OptionsJson } from './archive/metadata.ts';
export { isArchiveFile, type OpenedArchive, openArchive } from './archive/open.ts';
export { writeArchive } from './archive/tar-io.ts';
export { checkOptions, executionRequirements } from './archive/requirements.ts';
