import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../report/junit.ts';
import { formatMeasured, missedBudgetLines, verdictMessage } from '../../lib/summary/verdicts.ts';
import { level, report } from './fixture.ts';

describe('junitXml', () => {
  const results = [
    level({
      level: 1,
      throughput_infer_s: 10,
      budgets: [{ metric: 'http_req_duration{scenario:c1}', expr: 'p(95)<20', ok: true, measured: 2 }],
    }),
    level({
      level: 8,
      throughput_infer_s: 80,
      budgets: [
        { metric: 'http_req_duration{scenario:c8}', expr: 'p(95)<20', ok: false, measured: 24.5 },
        { metric: 'http_req_duration{scenario:c8}', expr: 'p(99)<30', ok: false, measured: 40 },
        { metric: 'http_req_failed{scenario:c8}', expr: 'rate<0.01', ok: true, measured: 0 },
      ],
    }),
  ];

  it('writes one testcase per verdict and counts the failures', () => {
    const xml = junitXml(report(results));
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const suite = doc.testsuites.testsuite;
    expect(suite.name).toBe('k6-triton mnist');
    expect(Number(suite.tests)).toBe(4);
    expect(Number(suite.failures)).toBe(2);
    const cases = suite.testcase as { classname: string; name: string; failure?: { message: string } }[];
    expect(cases.map((c) => c.classname)).toEqual(['mnist.c1', 'mnist.c8', 'mnist.c8', 'mnist.c8']);
    const failure = cases[1]!.failure!;
    expect(failure.message).toBe('http_req_duration at level c8: budget p(95)<20 missed, measured 24.50 ms');
  });

  it('escapes XML in names and messages', () => {
    const xml = junitXml({ ...report(results), model: 'a<b&"c"' });
    expect(xml).toContain('a&lt;b&amp;');
    expect(() => new XMLParser().parse(xml)).not.toThrow();
    expect(xml).toContain('p(95)&lt;20');
  });

  it('lists missed budgets for the console', () => {
    expect(missedBudgetLines(results)).toEqual([
      'budget missed: http_req_duration at level c8: budget p(95)<20 missed, measured 24.50 ms',
      'budget missed: http_req_duration at level c8: budget p(99)<30 missed, measured 40.00 ms',
    ]);
  });

  it('words a met budget too', () => {
    expect(verdictMessage(results[0]!.budgets[0]!)).toBe(
      'http_req_duration at level c1: budget p(95)<20 met, measured 2.00 ms',
    );
  });

  it('words a generative time budget in ms, its counts plain', () => {
    const ttft = { metric: 'genai_ttft{scenario:c2}', expr: 'p(95)<150', ok: true, measured: 34.7618 };
    expect(formatMeasured(ttft)).toBe('34.76 ms');
    expect(formatMeasured({ ...ttft, metric: 'genai_itl{scenario:c2}', measured: 3.61457 })).toBe('3.61 ms');
    expect(formatMeasured({ ...ttft, metric: 'genai_output_tokens{scenario:c2}', measured: 1234 })).toBe(
      '1234',
    );
  });
});
