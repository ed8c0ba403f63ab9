/** Parses `--out` values (json=FILE, csv=FILE, experimental-prometheus-rw) into sample outputs. */
import type { SampleOutput } from '../metrics/pipeline.ts';
import { CsvOutput } from './csv.ts';
import { JsonOutput } from './json.ts';
import { readRwConfig } from './prometheus-rw/config.ts';
import { PrometheusRwOutput } from './prometheus-rw/output.ts';
import { SampleRelayOutput } from './prometheus-rw/relay.ts';
import { BufferedWriter, type LineWriter } from './writer.ts';

/** An output that could not be made from its settings: k6 exits 255 with this line. */
export class OutputCreateError extends Error {}

/** Where createOutputs' outputs deliver. */
export interface OutputPlaces {
  /**
   * A worker other than the first: the i-th output's relay to the first worker, which writes the files
   * and holds the one remote-write series store (default: none, the outputs write themselves).
   */
  relay?: (index: number) => LineWriter;
  env?: Record<string, string | undefined>;
}

/** Creates the outputs; throws a one-line error for an unknown or malformed --out value. */
export function createOutputs(
  specs: readonly string[],
  thresholdsOf: (metric: string) => string[],
  { relay, env = process.env }: OutputPlaces = {},
): SampleOutput[] {
  return specs.map((spec, index) => {
    const eq = spec.indexOf('=');
    const kind = eq < 0 ? spec : spec.slice(0, eq);
    const path = eq < 0 ? '' : spec.slice(eq + 1);
    if (kind === 'json' || kind === 'csv') {
      if (!path) throw new Error(`--out ${kind} needs a file: --out ${kind}=results.${kind}`);
      const writer = relay ? relay(index) : new BufferedWriter(path);
      return kind === 'json' ? new JsonOutput(path, thresholdsOf, writer) : new CsvOutput(path, writer);
    }
    // k6 ignores the argument after `=` here: the settings are K6_PROMETHEUS_RW_* variables.
    if (kind === 'experimental-prometheus-rw') {
      try {
        const config = readRwConfig(env);
        // Two workers pushing the same series would overwrite each other's aggregates.
        return relay ? new SampleRelayOutput(relay(index)) : new PrometheusRwOutput(config);
      } catch (err) {
        throw new OutputCreateError(`could not create the '${kind}' output: ${(err as Error).message}`);
      }
    }
    throw new Error(
      `k6 API output "${kind}" is not supported by the Node runtime; run with k6 (supported: json=FILE, csv=FILE, experimental-prometheus-rw)`,
    );
  });
}
