import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../../bin/k6-triton.js', import.meta.url));

/** Runs `k6-triton serve` with ephemeral ports and resolves with its output once it reports its services. */
function serve(args: string[]): {
  child: ChildProcess;
  ready: Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d.toString();
      if (out.includes('Started Metrics Service')) resolve(out);
    });
    child.stderr!.on('data', (d) => {
      out += d.toString();
    });
    child.on('exit', () => reject(new Error(`serve exited early: ${out}`)));
  });
  // A caller that never awaits `ready` (bad options) must not leave an unhandled rejection.
  ready.catch(() => {});
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exit };
}

describe('k6-triton serve', () => {
  let running: ChildProcess | undefined;
  afterEach(() => {
    if (running && running.exitCode === null) running.kill('SIGKILL');
  });

  it('prints the model table and service lines, serves, and exits 0 on SIGTERM', async () => {
    const { child, ready, exit } = serve(['--time-scale', '0']);
    running = child;
    const out = await ready;
    expect(out).toMatch(/\| Model +\| Version \| Status \|/);
    expect(out).toMatch(/\| dlrm +\| 1 +\| READY +\|/);
    const port = Number(/Started HTTPService at 127\.0\.0\.1:(\d+)/.exec(out)![1]);
    expect((await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('exits non-zero with a one-line error for a bad option', async () => {
    const { child, exit } = serve(['--model-control-mode', 'sometimes']);
    running = child;
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d.toString();
    });
    expect(await exit).not.toBe(0);
    expect(err).toMatch(/--model-control-mode.*sometimes/);
  });

  it('injects the faults its flags ask for, on inference only', async () => {
    const { child, ready, exit } = serve([
      '--time-scale',
      '0',
      '--fault-status',
      '503:1',
      '--http-max-connections',
      '8',
    ]);
    running = child;
    const out = await ready;
    const port = Number(/Started HTTPService at 127\.0\.0\.1:(\d+)/.exec(out)![1]);
    const body = JSON.stringify({
      inputs: [{ name: 'input.1', shape: [1, 1, 28, 28], datatype: 'FP32', data: new Array(784).fill(0) }],
    });
    const res = await fetch(`http://127.0.0.1:${port}/v2/models/onnx-mnist-cpu/infer`, {
      method: 'POST',
      body,
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'injected fault: status 503 (fault injection)' });
    expect((await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('refuses a bad fault specification with a one-line error naming the fix', async () => {
    const { child, exit } = serve(['--fault-status', '418:0.1']);
    running = child;
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d.toString();
    });
    expect(await exit).not.toBe(0);
    expect(err).toMatch(
      /--fault-status "418:0.1"; expected STATUS:PROBABILITY with STATUS one of .*e\.g\. 503:0\.01,500:0\.02/,
    );
  });
});
