/**
 * Gathers what the manifests carry: the run plan checked as the bench checks it, the bundle, the budget
 * file and the payloads (their files when they fit a ConfigMap, else the arguments that regenerate the
 * same set from the seed inside the cluster). The only part of `k6-triton k8s` that touches the disk.
 */
import { SETTINGS } from '../../lib/settings/schema.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { getModel } from '../../models/index.ts';
import { DEFAULT_COUNT, DEFAULT_SEED, ensurePayloads } from '../../payloads/index.ts';
import { bundleScenario } from '../core/bundle.ts';
import { checkJudgedLevels, type RunSettings, resolveTarget } from '../core/target.ts';
import { headersSecret } from './headers.ts';
import type { ManifestInput, PayloadSource } from './manifests.ts';
import { payloadBytes, payloadsFit } from './payload-fit.ts';

/** Options of k8sInput; settings are the scenario's (TRITON_URL, CONCURRENCY, ...). */
export interface K8sOptions {
  model: string;
  settings: RunSettings;
  parallelism: number;
  name?: string;
  namespace?: string;
  runnerImage: string;
  /** Image with the k6-triton CLI, for the init container that generates large payload sets. */
  toolImage: string;
  resources: { cpu: string; memory: string };
  resultsClaim?: string;
  resultsSize: string;
  /** Requests in the payload set. @default 8 */
  count?: number;
  /** @default 1 */
  seed?: number;
  /** An existing Secret whose HEADERS key holds the runners' headers (instead of --headers/--headers-file). */
  headersSecret?: string;
  /** Force in-cluster generation even when the set would fit a ConfigMap. */
  generatePayloads?: boolean;
  extraArguments?: string[];
}

/** Files of a generated set a runner needs (perf_analyzer.json is for perf_analyzer only). */
function setFiles(dir: string): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  for (const file of readdirSync(dir).sort()) {
    if (file === 'perf_analyzer.json') continue;
    files[file] = readFileSync(join(dir, file));
  }
  return files;
}

/** Settings the runners get otherwise: payloads and budget are mounted files, headers come from a Secret. */
const MOUNTED = new Set(['PAYLOAD', 'THRESHOLDS', 'HEADERS', 'HEADERS_FILE']);

/**
 * The runners' environment, derived from the schema: the settings the scenario reads (lib/settings/schema.ts,
 * scope 'scenario') as given, but those mounted or in a Secret, and the scenario's own entry (MODEL).
 */
export function runnerEnv(
  settings: RunSettings,
  scenarioEnv: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { env: name, scope } of SETTINGS) {
    const value = settings[name];
    if (scope === 'scenario' && !MOUNTED.has(name) && value !== undefined) env[name] = value;
  }
  return { ...env, ...scenarioEnv };
}

/** Resolves everything `benchManifests` needs for one model; bad settings fail here with one line. */
export async function k8sInput(options: K8sOptions): Promise<ManifestInput> {
  // A catalog model only: the runners generate or read its payloads from the catalog entry.
  getModel(options.model);
  if (!(Number.isInteger(options.parallelism) && options.parallelism >= 1)) {
    throw new Error(`invalid --parallelism ${options.parallelism}; expected a whole number >= 1`);
  }
  if (!options.settings.TRITON_URL) {
    throw new Error(
      'k8s: no Triton endpoint; give --url http://triton:8000 (or TRITON_URL) as the runners see it',
    );
  }
  // The same plan the runners resolve: a bad level list or budget fails before anything is applied.
  const target = resolveTarget(options.model, options.settings);
  checkJudgedLevels(target);
  const { entry } = target;
  const { settings } = target.run;
  const env = runnerEnv(options.settings, target.scenarioEnv);
  const name = options.name ?? `k6-triton-${entry.id.replace(/[^a-z0-9-]/g, '-')}`;
  const headers = headersSecret(options.settings, name, options.headersSecret);
  const budget = target.budgetJson;
  const bundle = await bundleScenario(target.scenarioPath);
  const count = options.count ?? DEFAULT_COUNT;
  const seed = options.seed ?? DEFAULT_SEED;
  const recipe = { batch: settings.batch, precision: settings.precision, count };
  let payloads: PayloadSource;
  if (!options.generatePayloads && payloadsFit(payloadBytes(entry, recipe), 0)) {
    const set = await ensurePayloads({ model: entry, ...recipe, seed });
    payloads = { kind: 'configmap', files: setFiles(set.dir) };
  } else {
    // Long forms: payloads' short flags were dropped where perf_analyzer's mean otherwise (-p, -s).
    const args = ['--model', entry.id, '--batch', String(settings.batch), '--count', String(count)];
    args.push('--seed', String(seed));
    if (settings.precision) args.push('--precision', settings.precision);
    payloads = { kind: 'generate', image: options.toolImage, args };
  }
  return {
    name,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    script: {
      // The bundle's own name: its last line names its source map by it.
      file: basename(bundle),
      text: readFileSync(bundle, 'utf8'),
      ...(existsSync(`${bundle}.map`) ? { sourceMap: readFileSync(`${bundle}.map`, 'utf8') } : {}),
    },
    budget,
    payloads,
    parallelism: options.parallelism,
    env,
    ...(headers ? { headers } : {}),
    runnerImage: options.runnerImage,
    resources: options.resources,
    resultsClaim: options.resultsClaim ?? `${name}-results`,
    resultsSize: options.resultsSize,
    ...(options.extraArguments?.length ? { extraArguments: options.extraArguments } : {}),
  };
}
