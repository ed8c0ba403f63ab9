/** The mix file: parsing, the one-line errors that name the field and the fix, and scaling a mix's loads. */
import { describe, expect, it } from 'vitest';
import { parseMix, scaledLoad, scaleMix } from '../../measure/mix/file.ts';

const PATH = '/mixes/trio.json';

/** Parses a mix given as an object (JSON text). */
function mix(value: unknown, path = PATH) {
  return parseMix(JSON.stringify(value), path);
}

describe('parseMix', () => {
  it('splits a total open-loop rate by shares, keeps aliases as catalog ids and names the mix by its file', () => {
    const parsed = mix({
      total_rate: 400,
      models: [
        { model: 'bert', share: 70 },
        { model: 'resnext', share: 30 },
      ],
    });
    expect(parsed.name).toBe('trio');
    expect(parsed.total_rate).toBe(400);
    expect(parsed.models.map((m) => [m.id, m.load])).toEqual([
      ['bert-base', { mode: 'request-rate', level: 280 }],
      ['resnext101-32x4d', { mode: 'request-rate', level: 120 }],
    ]);
    expect(parsed.models.map((m) => m.share)).toEqual([70, 30]);
  });

  it('takes a generative model with its TTFT and ITL budgets, and refuses them on a tensor model', () => {
    const parsed = mix({
      models: [
        { model: 'mnist', concurrency: 2 },
        { model: 'gpt2', concurrency: 4, ttft_p95_ms: 150, itl_p95_ms: 10 },
      ],
    });
    expect(parsed.models[1]).toEqual({
      id: 'gpt2',
      load: { mode: 'concurrency', level: 4 },
      ttft_p95_ms: 150,
      itl_p95_ms: 10,
    });
    expect(() => mix({ models: [{ model: 'mnist', concurrency: 2, ttft_p95_ms: 150 }] })).toThrow(
      /models\[0\] \(mnist\) is not a generative model; ttft_p95_ms and itl_p95_ms budget .*gpt2.* only, use p95_ms and p99_ms/,
    );
  });

  it("takes each model's own load, payload and budget paths relative to the file, and YAML", () => {
    const text = [
      'name: closed',
      'models:',
      '  - model: dlrm',
      '    concurrency: 8',
      '    payload: ../payloads/dlrm.json',
      '    budget: budgets/dlrm.json',
      '    p95_ms: 25',
      '  - model: bert-base',
      '    rate: 2.5',
      '    p99_ms: 300',
    ].join('\n');
    const parsed = parseMix(text, '/work/mixes/closed.yaml');
    expect(parsed.name).toBe('closed');
    expect(parsed.models[0]).toEqual({
      id: 'dlrm',
      load: { mode: 'concurrency', level: 8 },
      payload: '/work/payloads/dlrm.json',
      budget: '/work/mixes/budgets/dlrm.json',
      p95_ms: 25,
    });
    expect(parsed.models[1]).toEqual({
      id: 'bert-base',
      load: { mode: 'request-rate', level: 2.5 },
      p99_ms: 300,
    });
  });

  it.each([
    [
      { models: [{ model: 'resnet', rate: 5 }] },
      /trio\.json: models\[0\]\.model "resnet" is not a catalog model; use one of .*dlrm/,
    ],
    [
      { models: [{ model: 'gpt3', rate: 5 }] },
      /models\[0\]\.model "gpt3" is not a catalog model; use one of .*gpt2/,
    ],
    [{ models: [{ rate: 5 }] }, /models\[0\]\.model is missing; name a catalog model/],
    [
      {
        total_rate: 100,
        models: [
          { model: 'mnist', share: 60 },
          { model: 'dlrm', share: 30 },
        ],
      },
      /shares sum to 90, not 100; adjust models\[\]\.share/,
    ],
    [
      { models: [{ model: 'mnist', rate: 5, concurrency: 2 }] },
      /models\[0\] \(mnist\) has more than one load; give exactly one of share \(with total_rate\), rate or concurrency/,
    ],
    [{ models: [{ model: 'mnist' }] }, /models\[0\] \(mnist\) has no load; give exactly one of/],
    [{ models: [{ model: 'mnist', share: 100 }] }, /models\[0\]\.share needs total_rate at the top level/],
    [{ total_rate: 10, models: [{ model: 'mnist', rate: 5 }] }, /total_rate is set but no model has a share/],
    [
      {
        total_rate: 10,
        models: [
          { model: 'mnist', share: 100 },
          { model: 'dlrm', rate: 1 },
        ],
      },
      /some models give a share and some do not/,
    ],
    [
      { models: [{ model: 'mnist', concurrency: 1.5 }] },
      /models\[0\]\.concurrency must be a positive whole number, got 1\.5/,
    ],
    [{ models: [{ model: 'mnist', rate: -1 }] }, /models\[0\]\.rate must be a positive number, got -1/],
    [
      {
        models: [
          { model: 'mnist', rate: 1 },
          { model: 'mnist', rate: 2 },
        ],
      },
      /models\[1\] repeats mnist; list each model once/,
    ],
    [
      { models: [{ model: 'mnist', rate: 1, shares: 2 }] },
      /models\[0\]\.shares is not a mix field; use model, share, rate/,
    ],
    [{ model: 'mnist' }, /trio\.json: model is not a mix field; use name, total_rate, models/],
    [{ models: [] }, /models must be a non-empty list/],
    [{ models: [{ model: 'mnist', rate: 1, payload: 3 }] }, /models\[0\]\.payload must be a file path/],
    [{ name: 'a b', models: [{ model: 'mnist', rate: 1 }] }, /name must be letters, digits/],
    [[1, 2], /a mix is an object with "models": \[\.\.\.\]/],
  ])('refuses %j in one line naming the field', (value, message) => {
    expect(() => mix(value)).toThrow(message);
    try {
      mix(value);
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('refuses more models than the mix scenario has slots', () => {
    const models = ['mnist', 'dlrm', 'bert-base', 'bert-large', 'resnet50', 'resnext101-32x4d'];
    expect(() => mix({ models: [...models, ...models].map((model) => ({ model, rate: 1 })) })).toThrow(
      /models has 12 entries; a mix takes at most 8/,
    );
  });

  it("names malformed JSON and YAML with the parser's reason", () => {
    expect(() => parseMix('{"models": [', PATH)).toThrow(
      /^\/mixes\/trio\.json: not valid JSON \(.+\); fix the syntax$/,
    );
    expect(() => parseMix('models: [\n  - a', '/m.yml')).toThrow(
      /^\/m\.yml: not valid YAML \(.+\); fix the syntax$/,
    );
  });

  it('accepts shares that miss 100 only by rounding', () => {
    const models = ['mnist', 'dlrm', 'bert-base'].map((model) => ({ model, share: 33.33 }));
    expect(mix({ total_rate: 30, models }).models.map((m) => m.load.level)).toEqual([10, 10, 10]);
    expect(() => mix({ total_rate: 30, models: models.map((m) => ({ ...m, share: 33 })) })).toThrow(
      /shares sum to 99, not 100/,
    );
  });
});

describe('scaling a mix', () => {
  it('scales rates to one decimal and concurrencies to whole VUs, never below the least load', () => {
    expect(scaledLoad({ mode: 'request-rate', level: 280 }, 150)).toEqual({
      mode: 'request-rate',
      level: 420,
    });
    expect(scaledLoad({ mode: 'request-rate', level: 3 }, 33)).toEqual({ mode: 'request-rate', level: 1 });
    expect(scaledLoad({ mode: 'request-rate', level: 0.5 }, 10)).toEqual({
      mode: 'request-rate',
      level: 0.1,
    });
    expect(scaledLoad({ mode: 'concurrency', level: 8 }, 150)).toEqual({ mode: 'concurrency', level: 12 });
    expect(scaledLoad({ mode: 'concurrency', level: 2 }, 10)).toEqual({ mode: 'concurrency', level: 1 });
    expect(scaledLoad({ mode: 'concurrency', level: 3 }, 50)).toEqual({ mode: 'concurrency', level: 2 });
  });

  it("keeps every model's share of the total at any scale", () => {
    const parsed = mix({
      total_rate: 400,
      models: [
        { model: 'bert-base', share: 70 },
        { model: 'resnext101-32x4d', share: 30 },
      ],
    });
    expect(scaleMix(parsed, 100).map((l) => l.level)).toEqual([280, 120]);
    expect(scaleMix(parsed, 50).map((l) => l.level)).toEqual([140, 60]);
    expect(scaleMix(parsed, 250).map((l) => l.level)).toEqual([700, 300]);
  });
});
