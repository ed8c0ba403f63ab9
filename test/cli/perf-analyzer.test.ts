import { afterEach, describe, expect, it, vi } from 'vitest';
import { main, packageVersion, program } from '../../cli/main.ts';
import {
  capacityFromPerfAnalyzer,
  checkShapes,
  fromPerfAnalyzer,
  modelOperand,
  REFUSED,
} from '../../cli/perf-analyzer.ts';
import { outputOptions } from '../../cli/options.ts';
import { runSettings } from '../../cli/settings-options.ts';
import { EXIT } from '../../measure/core/exit-codes.ts';

/** Parses `bench <args>` up to its action's flags, without running anything. */
function benchFlags(args: string[]): Record<string, unknown> {
  const prog = program();
  const bench = prog.commands.find((c) => c.name() === 'bench')!;
  let flags: Record<string, unknown> = {};
  bench.action((_m: unknown, _k: unknown, f: Record<string, unknown>) => {
    flags = f;
  });
  prog.parse(['bench', ...args], { from: 'user' });
  return flags;
}

describe("bench takes perf_analyzer's command line", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('maps each flag onto the native setting it means', () => {
    const flags = fromPerfAnalyzer(
      benchFlags([
        ...['-m', 'onnx-mnist-cpu', '-x', '2', '-u', 'triton:8000', '-H', 'A:1', '-H', 'B:2', '-b', '4'],
        ...['--concurrency-range', '1:8:2', '-p', '2500', '-s', '20', '-r', '7', '--percentile', '99'],
        ...['-l', '30', '--measurement-mode', 'count_windows', '--measurement-request-count', '80'],
      ]),
    );
    const settings = runSettings(flags, {});
    expect(settings).toMatchObject({
      MODEL_NAME: 'onnx-mnist-cpu',
      MODEL_VERSION: '2',
      TRITON_URL: 'http://triton:8000',
      HEADERS: 'A:1,B:2',
      BATCH: '4',
      CONCURRENCY: '1:8:2',
      STEP_DURATION: '2500ms',
      STABILITY: '20',
      MAX_TRIALS: '7',
      P99_MS: '30',
      MEASUREMENT_MODE: 'count_windows',
      MEASUREMENT_REQUEST_COUNT: '80',
    });
    expect(settings.P95_MS).toBeUndefined();
  });

  it('-u with -i grpc is the gRPC URL; rates, distribution and threads map too', () => {
    const flags = fromPerfAnalyzer(
      benchFlags([
        ...['-i', 'gRPC', '-u', 'triton:8001', '--request-rate-range', '100:400:100'],
        ...['--request-distribution', 'poisson', '--max-threads', '16', '-l', '20'],
      ]),
    );
    expect(runSettings(flags, {})).toMatchObject({
      PROTOCOL: 'grpc',
      TRITON_GRPC_URL: 'triton:8001',
      TRITON_URL: 'http://triton:8000',
      REQUEST_RATE: '100:400:100',
      ARRIVALS: 'poisson',
      MAX_VUS: '16',
      P95_MS: '20',
    });
  });

  it('--input-data: a JSON file is the payload, random the default, zero refused; --collect-metrics is the verbose CSV', () => {
    expect(fromPerfAnalyzer(benchFlags(['--input-data', 'data.json'])).payload).toBe('data.json');
    expect(fromPerfAnalyzer(benchFlags(['--input-data', 'random'])).payload).toBeUndefined();
    expect(() => fromPerfAnalyzer(benchFlags(['--input-data', 'zero']))).toThrow(/--input-data zero/);
    expect(fromPerfAnalyzer(benchFlags(['--collect-metrics'])).verboseCsv).toBe(true);
    expect(fromPerfAnalyzer(benchFlags(['--metrics-url', 'host:8002/metrics'])).metricsUrl).toBe(
      'http://host:8002/metrics',
    );
    expect(outputOptions(fromPerfAnalyzer(benchFlags(['--metrics-interval', '1000'])))).toEqual({
      metricsInterval_ms: 1000,
    });
    expect(() => fromPerfAnalyzer(benchFlags(['--metrics-interval', '0']))).toThrow(/--metrics-interval 0/);
  });

  it("-i grpc -u off Triton's gRPC port needs --url for the HTTP side", () => {
    expect(() => fromPerfAnalyzer(benchFlags(['-i', 'grpc', '-u', 'h:9001']), {})).toThrow(/give --url http/);
    const flags = fromPerfAnalyzer(benchFlags(['-i', 'grpc', '-u', 'h:9001', '--url', 'http://h:9000']), {});
    expect(runSettings(flags, {})).toMatchObject({ TRITON_URL: 'http://h:9000', TRITON_GRPC_URL: 'h:9001' });
  });

  it('-H adds to the headers given by --headers or HEADERS', () => {
    expect(fromPerfAnalyzer(benchFlags(['-H', 'B:2']), { HEADERS: 'A:1' }).headers).toBe('A:1,B:2');
    expect(fromPerfAnalyzer(benchFlags(['--headers', 'C:3', '-H', 'B:2']), { HEADERS: 'A:1' }).headers).toBe(
      'C:3,B:2',
    );
  });

  it('a native flag saying otherwise is an error naming both', () => {
    expect(() => fromPerfAnalyzer(benchFlags(['-b', '2', '--batch', '4']))).toThrow(
      '-b 2 and --batch 4 disagree; give one of them',
    );
  });

  it('refuses every unsupported perf_analyzer flag by name, with what to use', () => {
    for (const form of Object.keys(REFUSED)) {
      const [flag, value] = form.split(' ');
      const args = value ? [flag!, '1'] : [flag!];
      expect(() => fromPerfAnalyzer(benchFlags(args)), form).toThrow(
        new RegExp(`^perf_analyzer's ${flag} is not supported: .+`),
      );
    }
    expect(() => fromPerfAnalyzer(benchFlags(['--concurrency-range', '1:0']))).toThrow(/capacity/);
  });

  it('refuses through the CLI with exit 1 and one line', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => {
      lines.push(line);
    });
    expect(await main(['node', 'k6-triton', 'bench', 'mnist', '--streaming'])).toBe(EXIT.FAILED);
    expect(lines).toEqual([
      expect.stringMatching(/^k6-triton: perf_analyzer's --streaming is not supported: /),
    ]);
  });

  it('-m alone picks the catalog entry served under that name, else generic', () => {
    expect(modelOperand(undefined, { m: 'onnx-mnist-cpu' })).toBe('mnist');
    expect(modelOperand(undefined, { m: 'my-model' })).toBe('generic');
    expect(modelOperand('dlrm', { m: 'onnx-mnist-cpu' })).toBe('dlrm');
  });

  it("--shape must match a catalog model's input", () => {
    expect(() => checkShapes('mnist', ['input.1:1,1,28,28'])).not.toThrow();
    expect(() => checkShapes('mnist', ['input.1:1,28,28'])).toThrow(/payloads --shape/);
    expect(() => checkShapes('mnist', ['nope:1'])).toThrow(/has inputs input.1/);
  });

  it("capacity: a range is the search's start and ceiling", () => {
    expect(capacityFromPerfAnalyzer({ concurrencyRange: '2:64', binarySearch: true })).toMatchObject({
      start: 2,
      max: 64,
    });
    expect(capacityFromPerfAnalyzer({ requestRateRange: '10:0' })).toMatchObject({
      start: 10,
      requestRate: true,
    });
  });

  it('capacity: -r, --metrics-interval and --metrics-url as bench maps them (-f is copied by the command)', () => {
    const prog = program();
    const capacity = prog.commands.find((c) => c.name() === 'capacity')!;
    let given: Record<string, unknown> = {};
    capacity.action((_m: unknown, _k: unknown, f: Record<string, unknown>) => {
      given = f;
    });
    prog.parse(
      [
        'capacity',
        'mnist',
        '-r',
        '6',
        '-f',
        'pa.csv',
        '--metrics-interval',
        '250',
        '--metrics-url',
        'h:8002/metrics',
      ],
      { from: 'user' },
    );
    const flags = capacityFromPerfAnalyzer(given);
    expect(runSettings(flags, {}).MAX_TRIALS).toBe('6');
    expect(outputOptions(flags)).toEqual({ metricsInterval_ms: 250, metricsUrl: 'http://h:8002/metrics' });
    expect(flags.f).toBe('pa.csv');
  });
});

describe('--version and models', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function stdout(): () => string {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    return () => out;
  }

  it('every command prints the package version', async () => {
    const prog = program();
    for (const name of [...prog.commands.map((c) => c.name()), '']) {
      const out = stdout();
      const args = name ? [name, '--version'] : ['--version'];
      expect(await main(['node', 'k6-triton', ...args]), name).toBe(EXIT.OK);
      expect(out().trim(), name).toBe(packageVersion());
      vi.restoreAllMocks();
    }
  });

  it('models --by-kind lists every id bench takes, by kind', async () => {
    const out = stdout();
    await program().parseAsync(['models', '--by-kind'], { from: 'user' });
    expect(out()).toMatch(/^tensor: .*\bmnist\b/m);
    expect(out()).toMatch(/^sequence: .*sequence-identity/m);
    expect(out()).toMatch(/^generative: .*\bgpt2\b.*\brepeat\b/m);
  });
});
