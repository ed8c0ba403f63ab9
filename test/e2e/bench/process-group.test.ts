/**
 * ownGroup(): the child leads a process group of its own and, where perl is there, stays in the
 * caller's session (so, on Linux, in its scheduler autogroup); without perl it is detached.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childCommand, findPerl, ownGroup } from '../../../measure/core/process-group.ts';

/** pid, process group and session of a process, from /proc/<pid>/stat. */
function ids(stat: string): { pid: number; pgrp: number; session: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(stat.split(' ')[0]), pgrp: Number(fields[2]), session: Number(fields[3]) };
}

/** Runs the command and returns the ids the child read of itself. */
async function childIds(start: ReturnType<typeof ownGroup>) {
  const child = spawn(start.program, start.args, {
    detached: start.detached,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, pid: child.pid, self: ids(out) };
}

const PRINT_STAT = ['-e', 'process.stdout.write(require("node:fs").readFileSync("/proc/self/stat", "utf8"))'];
const procfs = existsSync('/proc/self/stat');

describe('ownGroup', () => {
  it.runIf(procfs && findPerl())('leads its own group in the caller session, with the same pid', async () => {
    const mine = ids(readFileSync('/proc/self/stat', 'utf8'));
    const start = ownGroup(process.execPath, PRINT_STAT);
    expect(start.detached).toBe(false);
    const { code, pid, self } = await childIds(start);
    expect(code).toBe(0);
    expect(self.pid).toBe(pid);
    expect(self.pgrp).toBe(self.pid);
    expect(self.pgrp).not.toBe(mine.pgrp);
    expect(self.session).toBe(mine.session);
  });

  it('detaches the child where there is no perl', () => {
    const start = ownGroup('/bin/k6', ['run', 'script.js'], null);
    expect(start).toEqual({ program: '/bin/k6', args: ['run', 'script.js'], detached: true });
  });

  it('leaves a command as it is when it needs no group of its own', () => {
    expect(childCommand('/bin/k6', ['run'], false)).toEqual({
      program: '/bin/k6',
      args: ['run'],
      detached: false,
    });
    expect(childCommand('/bin/k6', ['run'], true)).toEqual(ownGroup('/bin/k6', ['run']));
  });

  it('finds no perl among paths that do not exist', () => {
    expect(findPerl(['/nonexistent/perl'])).toBeUndefined();
  });

  it.runIf(procfs && findPerl())(
    'exits non-zero with the reason when the program cannot be run',
    async () => {
      const start = ownGroup('/nonexistent/k6', ['run']);
      const child = spawn(start.program, start.args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).not.toBe(0);
      expect(err).toContain('exec /nonexistent/k6');
    },
  );
});
