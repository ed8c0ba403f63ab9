/**
 * Issue 40, item 3: SIGTERM with a request in flight waits at most --exit-timeout-secs, then exits with
 * Triton's code and words (Triton 2.60: "failed to stop server: Internal - Exit timeout expired. Exiting
 * immediately.", exit code 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../../../measure/core/exit-codes.ts';
import { makeRepository, removeRepository } from '../helpers.ts';
import { slowModel } from '../repo-fixtures.ts';
import { type ServeProcess, serveProcess } from '../serve-process.ts';

const BODY = JSON.stringify({ inputs: [{ name: 'A', shape: [1], datatype: 'INT32', data: [1] }] });

describe('--exit-timeout-secs', () => {
  let repo: string;
  const started: ServeProcess[] = [];
  beforeAll(() => {
    repo = makeRepository({ slow: slowModel(20_000) });
  });
  afterAll(() => {
    for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    removeRepository(repo);
  });

  /** Starts serve, sends one 20 s request, and sends `signal` once the server counts it in flight. */
  async function stopWithRequestInFlight(signal: NodeJS.Signals, args: string[]) {
    const server = await serveProcess(['--model-repository', repo, '--log-verbose', '1', ...args]);
    started.push(server);
    const base = `http://127.0.0.1:${server.httpPort}`;
    const answer = fetch(`${base}/v2/models/slow/infer`, { method: 'POST', body: BODY }).then(
      (r) => `status ${r.status}`,
      (err: Error) => `failed: ${err.message}`,
    );
    // The request is in flight once the server has read it: it logs the request line first (--log-verbose),
    // then reads the few bytes of body and queues it, well within the pause below.
    while (!server.output().includes('HTTP request: 2 /v2/models/slow/infer')) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    server.child.kill(signal);
    return { server, code: await server.exit, answer: await answer };
  }

  it('exits with Triton’s code once the deadline passes with a 20 s request in flight (SIGTERM)', async () => {
    const { server, code, answer } = await stopWithRequestInFlight('SIGTERM', ['--exit-timeout-secs', '2']);
    expect(code).toBe(EXIT.EXIT_TIMEOUT_EXPIRED);
    expect(server.output()).toContain(
      'failed to stop server: Internal - Exit timeout expired. Exiting immediately.',
    );
    expect(server.output()).toMatch(/Timeout 2: Found 1 in-flight requests/);
    // The request in flight was cut, not answered.
    expect(answer).toMatch(/^failed/);
  }, 30_000);

  it('exits the same way on SIGINT', async () => {
    const { code } = await stopWithRequestInFlight('SIGINT', ['--exit-timeout-secs', '1']);
    expect(code).toBe(EXIT.EXIT_TIMEOUT_EXPIRED);
  }, 30_000);

  it('exits 0 at once when nothing is in flight', async () => {
    const server = await serveProcess(['--model-repository', repo, '--exit-timeout-secs', '30']);
    started.push(server);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(EXIT.OK);
    expect(server.output()).toContain('Server stopped');
  }, 30_000);
});
