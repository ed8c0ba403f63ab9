/**
 * The Makefile as a newcomer meets it: `make` alone lists the targets from their `##` lines, every
 * public target has one, and `npm test` runs what `make test` runs. Skips, saying why, without make.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../measure/core/exit-codes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAKEFILE = readFileSync(`${ROOT}Makefile`, 'utf8');
const hasMake = spawnSync('make', ['--version']).status === 0;
if (!hasMake) console.log('Makefile test skipped: make is not on PATH');

/** `make -s <args>` in the root, its stdout. */
function make(...args: string[]): string {
  const run = spawnSync('make', ['-s', '--no-print-directory', ...args], { cwd: ROOT, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** The targets the `##` lines describe (`## bench-<model>: ...` names `bench-<model>`). */
function describedTargets(): string[] {
  return [...MAKEFILE.matchAll(/^## ([^:]+):/gm)].map((m) => m[1]!.split(' ')[0]!);
}

/** Every target declared .PHONY: the Makefile's commands. */
function phonyTargets(): string[] {
  return [...MAKEFILE.matchAll(/^\.PHONY:(.*)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/));
}

describe.skipIf(!hasMake)('the Makefile', () => {
  it('lists every described target with its description on `make help`, and `make` alone prints the same', () => {
    const help = make('help');
    for (const line of MAKEFILE.matchAll(/^## ([^:]+): (.*)$/gm)) {
      expect(help).toMatch(new RegExp(`^ +${escapeRegExp(line[1]!)} +${escapeRegExp(line[2]!)}$`, 'm'));
    }
    expect(make()).toBe(help);
  });

  it('states the real exit codes: make exits 2 when the command fails, and the command codes it names are EXIT.*', () => {
    const help = make('help');
    expect(help).toContain('a target whose command fails exits 2');
    const named = Object.fromEntries(
      [
        ...help.matchAll(
          /(\d+) (a budget missed|inconclusive|not measured|compare found a regression|interrupted|bad input)/g,
        ),
      ].map((m) => [m[2]!, Number(m[1])]),
    );
    expect(named).toEqual({
      'a budget missed': EXIT.THRESHOLDS_FAILED,
      inconclusive: EXIT.INCONCLUSIVE,
      'not measured': EXIT.NOT_MEASURED,
      'compare found a regression': EXIT.REGRESSION,
      interrupted: EXIT.EXTERNAL_ABORT,
      'bad input': EXIT.FAILED,
    });
    // A failing command under make: make reports its code and exits 2 itself.
    const run = spawnSync('make', ['-s', '--no-print-directory', 'ci-gate', 'MODEL=nosuchmodel'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.stderr).toMatch(new RegExp(`Error ${EXIT.FAILED}$`, 'm'));
    expect(run.status).toBe(2);
  });

  it('describes every public target: a .PHONY target has a `##` line, or a pattern target line covers it', () => {
    const described = describedTargets();
    const patterns = described.filter((t) => t.includes('<')).map((t) => t.slice(0, t.indexOf('<')));
    const undescribed = phonyTargets().filter(
      (t) => !described.includes(t) && !patterns.some((prefix) => t.startsWith(prefix)),
    );
    expect(undescribed).toEqual([]);
  });
});

describe('npm test', () => {
  it('runs make test, so both run the type-check, the lint and both vitest projects', () => {
    const scripts = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).scripts as Record<string, string>;
    expect(scripts.test).toBe('make test');
    const recipe = /^test:.*\n((?:\t.*\n)+)/m.exec(MAKEFILE)?.[1] ?? '';
    expect(recipe).toContain('$(TSC)');
    expect(recipe).toContain('biome check .');
    expect(recipe).toContain('vitest run --project unit --project e2e');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
