/**
 * The README's commands tables name every command a newcomer can run: each `k6-triton` subcommand the
 * CLI registers and each make target the Makefile describes (a `##` line), so a new one cannot be
 * left out of the README unnoticed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { program } from '../../cli/main.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');
const MAKEFILE = readFileSync(`${ROOT}Makefile`, 'utf8');

/** The subcommands of `k6-triton`, as its parser registers them. */
function cliCommands(): string[] {
  return program()
    .commands.map((c) => c.name())
    .filter((name) => name !== 'help');
}

/** The make targets the `##` lines describe, as a user types them (`bench-<model>`). */
function makeTargets(): string[] {
  return [...MAKEFILE.matchAll(/^## ([^:]+):/gm)].map((m) => m[1]!.split(' ')[0]!);
}

/** The names a text lacks: a command is present when a backticked span starts with it. */
function missing(text: string, spans: string[]): string[] {
  const named = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return spans.filter((span) => !named.some((s) => s === span || s.startsWith(`${span} `)));
}

describe('the README commands tables', () => {
  it('finds the CLI commands and make targets to look for', () => {
    expect(cliCommands()).toEqual(expect.arrayContaining(['bench', 'capacity', 'run', 'serve']));
    expect(makeTargets()).toEqual(expect.arrayContaining(['test', 'bench-<model>', 'ci-gate']));
  });

  it('names every k6-triton command', () => {
    expect(missing(README, cliCommands())).toEqual([]);
  });

  it('names every described make target', () => {
    expect(
      missing(
        README,
        makeTargets().map((t) => `make ${t}`),
      ),
    ).toEqual([]);
  });

  it('notices a name that is absent', () => {
    expect(missing('`bench <model>` and `make test`', ['bench', 'sweep', 'make test', 'make lint'])).toEqual([
      'sweep',
      'make lint',
    ]);
  });
});
