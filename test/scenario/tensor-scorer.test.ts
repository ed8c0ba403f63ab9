/**
 * The tensor kinds' scorer: what a response counts as (ok, error, invalid), one warning per VU, and per measured
 * level the first failure and the first invalid response as failing checks; warm-ups count but name nothing.
 */
import { describe, expect, it } from 'vitest';
import { tensorScorer } from '../../scenarios/kit/tensor-scorer.ts';

function rig() {
  const log: string[] = [];
  const exec = { scenario: { name: 'c1_warmup' } };
  const scorer = tensorScorer({
    transport: { target: 'http://fake', noResponse: (error) => error.includes('refused') },
    exec,
    modelName: 'm',
    inferErrors: { add: (failed) => log.push(`infer_errors ${String(failed)}`) },
    responses: { invalid: { add: (n) => log.push(`infer_invalid ${String(n)}`) } },
    check: (_, checks) => {
      for (const name of Object.keys(checks)) log.push(`check ${name}`);
      return false;
    },
    warn: (line) => log.push(`warn ${line}`),
  });
  return { log, exec, scorer };
}

describe('tensor scorer', () => {
  it('counts ok, errors and invalid responses; warns once; names each level its first error and first invalid', () => {
    const { log, exec, scorer } = rig();
    scorer.outcome(undefined);
    scorer.outcome('status 500');
    exec.scenario.name = 'c1';
    scorer.outcome('connection refused');
    scorer.outcome('status 503');
    scorer.outcome('invalid response: body is text/html, not JSON');
    scorer.outcome('invalid response: body is not JSON');
    exec.scenario.name = 'c2';
    scorer.failed("sequence 2: the response to step 1 is not that step's");
    expect(log).toEqual([
      'infer_errors false',
      'infer_errors true',
      'warn m on http://fake: status 500',
      'infer_errors true',
      'check first error at c1 (no response): connection refused',
      'infer_errors true',
      'infer_errors true',
      'infer_invalid 1',
      'check first error at c1: invalid response: body is text/html, not JSON',
      'infer_errors true',
      'infer_invalid 1',
      "check first error at c2: sequence 2: the response to step 1 is not that step's",
    ]);
  });

  it("names a ramp's window, the VU's scenario tag, as the level of its first error", () => {
    const log: string[] = [];
    const tags: Record<string, unknown> = { scenario: 'c1_67' };
    const scorer = tensorScorer({
      transport: { target: 'http://fake', noResponse: () => false },
      exec: { scenario: { name: 'ramp' }, vu: { metrics: { tags } } },
      modelName: 'm',
      responses: { invalid: { add: () => {} } },
      check: (_, checks) => {
        for (const name of Object.keys(checks)) log.push(name);
        return false;
      },
      warn: () => {},
    });
    scorer.outcome('status 500');
    tags['scenario'] = 'c2_33';
    scorer.outcome('status 503');
    expect(log).toEqual(['first error at c1_67: status 500', 'first error at c2_33: status 503']);
  });
});
