/** Parses `--out` values (json=FILE, csv=FILE, experimental-prometheus-rw) into sample outputs. */
import type { SampleOutput } from '../metrics/pipeline.ts';
import { CsvOutput } from './csv.ts';
import { JsonOutput } from './json.ts';
import { readRwConfig } from './prometheus-rw/config.ts';
import { PrometheusRwOutput } from './prometheus-rw/output.ts';

/** An output that could not be made from its settings: k6 exits 255 with this line. */
export class OutputCreateError extends Error {}

/** Creates the outputs; throws a one-line error for an unknown or malformed --out value. */
export function createOutputs(
  specs: readonly string[],
  thresholdsOf: (metric: string) => string[],
  env: Record<string, string | undefined> = process.env,
): SampleOutput[] {
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    const kind = eq < 0 ? spec : spec.slice(0, eq);
    const path = eq < 0 ? '' : spec.slice(eq + 1);
    if (kind === 'json' || kind === 'csv') {
      if (!path) throw new Error(`--out ${kind} needs a file: --out ${kind}=results.${kind}`);
      return kind === 'json' ? new JsonOutput(path, thresholdsOf) : new CsvOutput(path);
    }
    // k6 ignores the argument after `=` here: the settings are K6_PROMETHEUS_RW_* variables.
    if (kind === 'experimental-prometheus-rw') {
      try {
        return new PrometheusRwOutput(readRwConfig(env));
      } catch (err) {
        throw new OutputCreateError(`could not create the '${kind}' output: ${(err as Error).message}`);
      }
    }
    throw new Error(
      `k6 API output "${kind}" is not supported by the Node runtime; run with k6 (supported: json=FILE, csv=FILE, experimental-prometheus-rw)`,
    );
  });
}
