/**
 * `k6-triton run x.tar`: an archive (k6's or ours) runs as k6 runs one. Its files are extracted to a
 * temporary folder; its options stand for the script's; its environment is under the run's own (the
 * system's, when included, then -e), as k6 layers them.
 */
import { isArchiveFile, type OpenedArchive, openArchive } from '@k6-triton/runtime';

/** The archive at `path` opened, or null when it is a script (`--type js`, or not a tar). */
export async function archiveToRun(path: string, type: string | undefined): Promise<OpenedArchive | null> {
  if (type === 'js') return null;
  if (type !== 'archive' && !isArchiveFile(path)) return null;
  return openArchive(path);
}

/** The archive's environment without what the system environment sets (that wins, as in k6). */
export function archiveEnv(archive: OpenedArchive, includeSystemEnv: boolean): Record<string, string> {
  if (!includeSystemEnv) return archive.env;
  return Object.fromEntries(Object.entries(archive.env).filter(([k]) => process.env[k] === undefined));
}
