/** Parses `--out` values (json=FILE, csv=FILE) into sample outputs. */
import type { SampleOutput } from '../metrics/pipeline.ts';
import { CsvOutput } from './csv.ts';
import { JsonOutput } from './json.ts';

/** Creates the outputs; throws a one-line error for an unknown or malformed --out value. */
export function createOutputs(
  specs: readonly string[],
  thresholdsOf: (metric: string) => string[],
): SampleOutput[] {
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    const kind = eq < 0 ? spec : spec.slice(0, eq);
    const path = eq < 0 ? '' : spec.slice(eq + 1);
    if (kind === 'json' || kind === 'csv') {
      if (!path) throw new Error(`--out ${kind} needs a file: --out ${kind}=results.${kind}`);
      return kind === 'json' ? new JsonOutput(path, thresholdsOf) : new CsvOutput(path);
    }
    throw new Error(
      `k6 API output "${kind}" is not supported by the Node runtime; run with k6 (supported: json=FILE, csv=FILE)`,
    );
  });
}
