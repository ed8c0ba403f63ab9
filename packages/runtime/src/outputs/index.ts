/** Parses `--out` values (json=FILE, csv=FILE) into sample outputs. */
import type { SampleOutput } from '../metrics/pipeline.ts';
import { CsvOutput } from './csv.ts';
import { JsonOutput } from './json.ts';
import { BufferedWriter, type LineWriter } from './writer.ts';

/**
 * Creates the outputs; throws a one-line error for an unknown or malformed --out value. `writerFor`
 * gives the i-th output's writer (default: its file; a worker other than the first: a relay).
 */
export function createOutputs(
  specs: readonly string[],
  thresholdsOf: (metric: string) => string[],
  writerFor: (index: number, path: string) => LineWriter = (_, path) => new BufferedWriter(path),
): SampleOutput[] {
  return specs.map((spec, index) => {
    const eq = spec.indexOf('=');
    const kind = eq < 0 ? spec : spec.slice(0, eq);
    const path = eq < 0 ? '' : spec.slice(eq + 1);
    if (kind === 'json' || kind === 'csv') {
      if (!path) throw new Error(`--out ${kind} needs a file: --out ${kind}=results.${kind}`);
      const writer = writerFor(index, path);
      return kind === 'json' ? new JsonOutput(path, thresholdsOf, writer) : new CsvOutput(path, writer);
    }
    throw new Error(
      `k6 API output "${kind}" is not supported by the Node runtime; run with k6 (supported: json=FILE, csv=FILE)`,
    );
  });
}
