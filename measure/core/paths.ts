/**
 * Where the package's own files are, whatever the working directory: the one package-root reference of
 * the commands (scenarios, budget files, the CLI entry, build output).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root folder (where package.json is). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A path inside the package. */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}

/** A run's id: its start time, safe in a folder name (2026-11-25T15-04-05-123). */
export function runId(at = new Date()): string {
  return at.toISOString().replace(/[:.]/g, '-').replace('Z', '');
}
