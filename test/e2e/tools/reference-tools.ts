/**
 * Finds the reference tools (real perf_analyzer, tritonclient's python) for the tests that check the suite
 * against them. They live in ../shared/tools/bin beside the repo on CI; a user's clone has none, so every
 * caller skips with the reason this module gives instead of failing.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/tools/reference-tools.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A reference tool: its path when found, else why it was not. */
export interface ReferenceTool {
  path?: string;
  skipReason: string;
}

/** Resolves a tool from its env var (which wins) or ../shared/tools/bin/<name> relative to the repo root. */
export function referenceTool(name: string, envVar: string): ReferenceTool {
  const fromEnv = process.env[envVar];
  const candidate = fromEnv || path.resolve(REPO_ROOT, '..', 'shared', 'tools', 'bin', name);
  if (existsSync(candidate)) return { path: candidate, skipReason: '' };
  const where = fromEnv ? `${envVar}=${fromEnv}` : `../shared/tools/bin/${name} (or set ${envVar})`;
  return { skipReason: `skipped: ${name} not found at ${where}` };
}
