/**
 * Bad input found before anything starts (issue 35 item 8): a payload set, perf_analyzer input data or budget
 * file the user can fix is refused by the CLI itself with exit 1 and one line naming the file, the field and the
 * fix; no server is started, no runtime runs and no run folder is written.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { ensurePayloads } from '../../../payloads/index.ts';
import { type CliRun, resultsDir, runCli } from './run-cli.ts';

const QUICK = ['--concurrency', '1', '--step-duration', '1s', '--warmup', '0s', '--runtime', 'node'];

let root: string;
/** A good mnist set of two samples, in its cache folder under `cache`. */
let cache: string;
let manifest: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'k6t-bad-input-'));
  cache = join(root, 'cache');
  manifest = (await ensurePayloads({ model: 'mnist', count: 2, seed: 7, outDir: cache })).manifestPath;
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the good set outside the cache, edited by `edit` (gets the copy's folder). */
function copiedSet(name: string, edit: (dir: string) => void): string {
  const dir = join(root, name);
  cpSync(join(manifest, '..'), dir, { recursive: true });
  edit(dir);
  return join(dir, 'manifest.json');
}

function editManifest(dir: string, edit: (doc: Record<string, unknown>) => void): void {
  const path = join(dir, 'manifest.json');
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  edit(doc);
  writeFileSync(path, JSON.stringify(doc));
}

/** The good set's perf_analyzer file with its entries' input renamed (or reshaped by `edit`). */
function perfAnalyzerFile(name: string, edit: (entry: Record<string, unknown>) => Record<string, unknown>) {
  const doc = JSON.parse(readFileSync(join(manifest, '..', 'perf_analyzer.json'), 'utf8')) as {
    data: Record<string, unknown>[];
  };
  const path = join(root, name);
  writeFileSync(path, JSON.stringify({ data: doc.data.map(edit) }));
  return path;
}

/** Exit 1, exactly one line on stderr that is the CLI's own, nothing started, no run folder. */
function refused(run: CliRun, results: string): string {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(EXIT.FAILED);
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^k6-triton: /);
  expect(run.stdout).not.toMatch(/embedded server|tritonserver on/);
  expect(existsSync(results) ? readdirSync(results) : []).toEqual([]);
  return lines[0]!;
}

async function bench(args: string[], model = 'mnist'): Promise<string> {
  const results = resultsDir();
  const run = await runCli(['bench', model, ...QUICK, '--results-dir', results, ...args]);
  return refused(run, results);
}

describe('bench refuses a bad payload file before the server starts', () => {
  it('a --payload that does not exist: its path and how to make a set', async () => {
    const missing = join(root, 'nowhere', 'manifest.json');
    const line = await bench(['--payload', missing]);
    expect(line).toContain(`${missing}: no such file`);
    expect(line).toContain('`k6-triton payloads --model mnist`');
  }, 60_000);

  it('a truncated sample of a copied set: expected and found bytes, and no --force that would not mend it', async () => {
    const copy = copiedSet('short', (dir) => truncateSync(join(dir, '000001.input.1.bin'), 100));
    const line = await bench(['--payload', copy]);
    expect(line).toContain(
      `(${copy} samples[1].files["input.1"]): truncated: expected 3136 bytes, found 100`,
    );
    expect(line).toContain('restore the file, or make a new set with `k6-triton payloads --model mnist`');
    expect(line).not.toMatch(/regenerate with/);
  }, 60_000);

  it('a truncated sample of a set in its cache folder: the payloads command that rewrites it', async () => {
    const ref = await ensurePayloads({ model: 'mnist', count: 2, seed: 8, outDir: cache });
    truncateSync(join(ref.dir, '000000.input.1.bin'), 7);
    const line = await bench(['--payload', ref.manifestPath]);
    expect(line).toContain('truncated: expected 3136 bytes, found 7');
    expect(line).toContain(
      `regenerate with \`k6-triton payloads --model mnist --count 2 --seed 8 --out ${cache} --force\``,
    );
  }, 60_000);

  it('a missing sample file: the file, the manifest field and ENOENT', async () => {
    const copy = copiedSet('gone', (dir) => rmSync(join(dir, '000000.input.1.bin')));
    const line = await bench(['--payload', copy]);
    expect(line).toContain(`samples[0].files["input.1"]): missing (ENOENT)`);
  }, 60_000);

  it('a manifest that is not JSON', async () => {
    const copy = copiedSet('broken', (dir) => writeFileSync(join(dir, 'manifest.json'), '{"samples": ['));
    const line = await bench(['--payload', copy]);
    expect(line).toContain(`payload file ${copy} is not JSON`);
  }, 60_000);

  it("a set of another datatype than the model's", async () => {
    const copy = copiedSet('fp16', (dir) =>
      editManifest(dir, (doc) => {
        (doc.inputs as { datatype: string }[])[0]!.datatype = 'FP16';
        doc.precision = 'FP16';
      }),
    );
    const line = await bench(['--payload', copy]);
    expect(line).toContain(`${copy}: inputs[0].datatype is FP16, the model takes FP32 for input.1`);
  }, 60_000);

  it("a set whose input is not the model's names the model's inputs", async () => {
    const copy = copiedSet('renamed', (dir) =>
      editManifest(dir, (doc) => {
        (doc.inputs as { name: string }[])[0]!.name = 'INPUT__0';
        for (const s of doc.samples as { files: Record<string, string> }[])
          s.files = { INPUT__0: s.files['input.1']! };
      }),
    );
    const line = await bench(['--payload', copy]);
    expect(line).toContain('inputs[0].name "INPUT__0" is not an input of the model (inputs: input.1)');
  }, 60_000);

  it("perf_analyzer input data with a wrong input name names the model's inputs", async () => {
    const file = perfAnalyzerFile('wrong-name.json', (e) => ({ INPUT0: e['input.1'] }));
    const line = await bench(['--payload', file]);
    expect(line).toContain(`${file} entry 0: input "INPUT0" is not an input of the model (inputs: input.1)`);
  }, 60_000);

  it('perf_analyzer input data of the wrong shape', async () => {
    const file = perfAnalyzerFile('wrong-shape.json', (e) => ({
      'input.1': { ...(e['input.1'] as object), shape: [1, 28, 28] },
    }));
    const line = await bench(['--payload', file]);
    expect(line).toContain(`${file} entry 0: input.1 shape [1,28,28] does not fit the model's [1,1,28,28]`);
  }, 60_000);
});

describe('bench refuses a bad budget file before the server starts', () => {
  const budget = (name: string, doc: unknown) => {
    const path = join(root, name);
    writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return path;
  };
  const good = { p95_ms: 1000, p99_ms: 2000, error_rate: 0.01, source: 'test' };

  it('a --thresholds file that does not exist', async () => {
    const missing = join(root, 'no-budget.json');
    const line = await bench(['--thresholds', missing]);
    expect(line).toContain(`THRESHOLDS ${missing}: cannot be read (ENOENT)`);
  }, 60_000);

  it('a "levels" filter naming none of the run\'s levels (c3 at --concurrency 1)', async () => {
    const file = budget('c3.json', { ...good, levels: ['c3'] });
    const line = await bench(['--thresholds', file]);
    expect(line).toContain(`${file}: field "levels" names c3, none of this run's levels (c1)`);
    expect(line).toContain('--concurrency 3');
  }, 60_000);

  it('malformed JSON and an unknown field', async () => {
    expect(await bench(['--thresholds', budget('broken.json', '{"p95_ms": 10,')])).toContain(
      'not valid JSON',
    );
    expect(await bench(['--thresholds', budget('unknown.json', { ...good, p50_ms: 3 })])).toContain(
      'unknown field "p50_ms"',
    );
  }, 60_000);
});

describe('bench refuses an address it would not use', () => {
  it('--grpc-url without --url (the run would start its own server and ignore it)', async () => {
    const line = await bench(['--grpc-url', '127.0.0.1:9']);
    expect(line).toContain("--grpc-url (TRITON_GRPC_URL=127.0.0.1:9) needs the same server's --url");
  }, 60_000);
});

describe("bench refuses a setting the model's config makes meaningless", () => {
  it('--batch above 1 for a model with max_batch_size 0 (no batch dimension)', async () => {
    const line = await bench(['--batch', '4']);
    expect(line).toBe(
      'k6-triton: invalid BATCH=4 for onnx-mnist-cpu: the model has no batch dimension (max_batch_size 0)',
    );
  }, 60_000);
});

describe('the other commands refuse the same inputs before anything starts', () => {
  it('capacity with a truncated payload sample', async () => {
    const copy = copiedSet('short-capacity', (dir) => truncateSync(join(dir, '000000.input.1.bin'), 1));
    const results = resultsDir();
    const run = await runCli([
      ...['capacity', 'mnist', '--payload', copy, '--max', '2', '--step-duration', '1s', '--warmup', '0s'],
      ...['--runtime', 'node', '--results-dir', results],
    ]);
    expect(refused(run, results)).toContain('truncated: expected 3136 bytes, found 1');
  }, 60_000);

  it("a mix whose second model's payload is missing, before the first model's server starts", async () => {
    const missing = join(root, 'nowhere', 'resnet50.json');
    const mix = join(root, 'mix.json');
    writeFileSync(
      mix,
      JSON.stringify({
        name: 'bad-input',
        models: [
          { model: 'mnist', concurrency: 1 },
          { model: 'resnet50', concurrency: 1, payload: missing },
        ],
      }),
    );
    const results = resultsDir();
    const run = await runCli(['bench', '--mix', mix, ...QUICK.slice(2), '--results-dir', results]);
    expect(refused(run, results)).toContain(`${missing}: no such file`);
  }, 60_000);

  it("k8s with a budget whose levels name none of the run's", async () => {
    const file = join(root, 'c3-k8s.json');
    writeFileSync(
      file,
      JSON.stringify({ p95_ms: 10, p99_ms: 20, error_rate: 0, source: 't', levels: ['c3'] }),
    );
    const out = join(root, 'k8s-out');
    const run = await runCli([
      ...['k8s', 'mnist', '--url', 'http://triton:8000', '--concurrency', '1,2', '--thresholds', file],
      ...['--out', out],
    ]);
    expect(refused(run, out)).toContain("none of this run's levels (c1, c2)");
  }, 60_000);
});
