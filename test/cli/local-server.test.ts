/**
 * The choice of the server a run starts (measure/core/local-server.ts): TRITONSERVER or --tritonserver, and the
 * one-line errors for a binary that is missing, not executable or fails, before any server starts.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportCatalogRepository } from '../../measure/core/catalog-repository.ts';
import { startLocalServer, tritonserverFailure } from '../../measure/core/local-server.ts';
import { tritonserverOption } from '../../cli/options.ts';

const MNIST = { modelId: 'mnist', servedModel: 'onnx-mnist-cpu' };

describe('tritonserverOption', () => {
  it('takes --tritonserver over TRITONSERVER, TRITONSERVER alone, and nothing for the embedded server', () => {
    expect(tritonserverOption({ tritonserver: '/a' }, { TRITONSERVER: '/b' })).toEqual({
      tritonserver: '/a',
    });
    expect(tritonserverOption({}, { TRITONSERVER: '/b' })).toEqual({ tritonserver: '/b' });
    expect(tritonserverOption({}, { TRITONSERVER: '' })).toEqual({});
    expect(tritonserverOption({}, {})).toEqual({});
  });
});

describe('startLocalServer with a tritonserver', () => {
  it('names TRITONSERVER in one line when the binary does not exist', async () => {
    const run = startLocalServer({ ...MNIST, tritonserver: '/nonexistent/tritonserver' });
    await expect(run).rejects.toThrow(
      /^TRITONSERVER=\/nonexistent\/tritonserver: no such file; set TRITONSERVER/,
    );
    await expect(run).rejects.not.toThrow(/\n/);
  });

  it('names TRITONSERVER when the file is not executable', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'k6t-ts-')), 'tritonserver');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o644);
    await expect(startLocalServer({ ...MNIST, tritonserver: file })).rejects.toThrow(
      `TRITONSERVER=${file}: not executable`,
    );
  });

  it('refuses --time-scale, which only the embedded server has', async () => {
    await expect(startLocalServer({ ...MNIST, tritonserver: '/bin/true', timeScale: 2 })).rejects.toThrow(
      /^--time-scale applies to the embedded server only; drop it or unset TRITONSERVER=\/bin\/true$/,
    );
  });

  it('asks for --model-repository for a model the catalog does not have', async () => {
    await expect(
      startLocalServer({ modelId: 'generic', servedModel: 'mine', tritonserver: '/bin/true' }),
    ).rejects.toThrow(/pass --model-repository <dir>/);
  });
});

describe('tritonserverFailure', () => {
  it("keeps the server's last error line, on one line", () => {
    const error = new Error(
      [
        'tritonserver exited with code 1 before it was ready:',
        'I1125 12:00:00.000 1 server.cc:1] loading',
        "E1125 12:00:00.100 1 model_lifecycle.cc:654] failed to load 'onnx-mnist-cpu': Invalid argument: bad dims",
        'I1125 12:00:00.200 1 server.cc:2] exiting',
      ].join('\n'),
    );
    const line = tritonserverFailure('/opt/tritonserver', error);
    expect(line).not.toMatch(/\n/);
    expect(line).toMatch(/^TRITONSERVER=\/opt\/tritonserver: exited with code 1 before it was ready: E1125 /);
    expect(line).toContain("failed to load 'onnx-mnist-cpu': Invalid argument: bad dims");
  });

  it('says what happened when there is no log', () => {
    expect(tritonserverFailure('/x', new Error('tritonserver exited with code 1 before it was ready:'))).toBe(
      'TRITONSERVER=/x: exited with code 1 before it was ready; set TRITONSERVER to a working tritonserver binary, or unset it for the embedded server',
    );
  });
});

describe('exportCatalogRepository', () => {
  it("writes the run's model at the run's precision", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6t-repo-'));
    await exportCatalogRepository({ modelId: 'dlrm', precision: 'FP16' }, dir);
    expect(existsSync(join(dir, 'dlrm', '1', 'model.onnx'))).toBe(true);
    const config = readFileSync(join(dir, 'dlrm', 'config.pbtxt'), 'utf8');
    expect(config).toMatch(/name: "input__0"[^}]*data_type: TYPE_FP16/);
  });
});
