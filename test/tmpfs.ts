/**
 * Real small filesystems for tests of a full or read-only disk: a tmpfs mounted on a fresh folder. Mounting
 * needs root (or CAP_SYS_ADMIN); where it is refused, `tmpfsRefused` says why and the tests skip with it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted tmpfs: its folder, and how to take it down (unmount, remove the folder). */
export interface Tmpfs {
  dir: string;
  unmount: () => void;
}

/** Mounts a tmpfs with mount options such as 'size=4k' or 'size=4k,ro' on a fresh folder; throws when refused. */
export function mountTmpfs(options: string): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`mount -t tmpfs -o ${options}: ${stderr || (error as Error).message}`);
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Why a tmpfs cannot be mounted here (not root, no mount command), or undefined when it can. */
export const tmpfsRefused: string | undefined = (() => {
  try {
    mountTmpfs('size=4k').unmount();
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
})();

if (tmpfsRefused) console.warn(`skipped: tests on a small real filesystem: ${tmpfsRefused}`);
