/**
 * k6-triton's k6-compatible runtime on Node: `runTest({ script, ... })` runs a k6 script (an
 * esbuild bundle, .js or .ts) with k6's semantics and outputs, and returns k6's exit code and
 * the handleSummary data.
 */
export { runTest, type RunTestOptions, type RunTestResult } from './engine.ts';
export type { OptionOverrides } from './options/index.ts';
export { EXIT } from './run-state.ts';
export type { SummaryData } from './summary/data.ts';
export { renderTextSummary, type SummaryMode } from './summary/text.ts';
