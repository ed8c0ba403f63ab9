import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';

const out = mkdtempSync(join(tmpdir(), 'k6t-cli-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs the CLI in-process and returns its exit code and what it printed. */
async function run(...args: string[]) {
  const logs: string[] = [];
  const errors: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void logs.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    errors.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logs.push(String(chunk));
    return true;
  });
  const code = await main(['node', 'k6-triton', 'payloads', ...args]);
  return { code, stdout: logs.join('\n'), stderr: errors.join('\n') };
}

describe('k6-triton payloads', () => {
  it('writes a set and prints its manifest path', async () => {
    const r = await run('--model', 'bert-base', '--count', '2', '--seed', '4', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/bert-base\/int32-b1-n2-s4-[0-9a-f]{12}\/manifest\.json$/);
    expect(existsSync(r.stdout.trim())).toBe(true);
  });

  it('fails with the list of known models for an unknown model', async () => {
    const r = await run('--model', 'yolo', '--out', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'k6-triton: unknown model "yolo"; known models: bert-base, bert-large, dlrm, mnist',
    );
  });

  it('fails naming the input for an invalid --shape', async () => {
    const r = await run('--model', 'bert-base', '--shape', 'input_ids:64', '--out', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'invalid --shape "input_ids:64": dim 0 of input_ids is fixed at 128 by the model, got 64',
    );
  });

  it('rejects a bad --count and an unknown --distribution before generating', async () => {
    expect((await run('--model', 'mnist', '--count', '0', '--out', out)).stderr).toContain(
      '--count must be an integer >= 1',
    );
    const r = await run('--model', 'mnist', '--distribution', 'gamma', '--out', out);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Allowed choices are uniform, normal');
  });

  it('documents every option in --help', async () => {
    const r = await run('--help');
    for (const flag of [
      '--model',
      '--batch',
      '--precision',
      '--count',
      '--seed',
      '--images',
      '--zipf',
      '--hash-indices',
      '--dataset-config',
      '--squad',
      '--vocab',
      '--shape',
      '--input-data',
      '--force',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });
});
