/**
 * `k6-triton k8s <model>`: writes the manifests of a distributed bench on grafana's k6-operator (a
 * ConfigMap with the bundle and budget, the payloads or their generator, a results claim and a TestRun, and a
 * Secret with the request headers when the run sends any).
 * Settings are the bench's (flags or environment); `k6-triton merge` turns the runners' samples into one report.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { addSettingOptions, runSettings } from './settings-options.ts';
import { stringify } from 'yaml';
import { modelIds } from '../models/index.ts';
import { writeResult } from '../report/not-written.ts';
import { k8sInput } from '../measure/k8s/inputs.ts';
import { benchManifests, type K8sObject } from '../measure/k8s/manifests.ts';

function wholeNumber(flag: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min) {
      throw new InvalidArgumentError(`${flag} must be a whole number >= ${min}, got "${value}"`);
    }
    return n;
  };
}

/** The objects as one multi-document YAML stream, ready for `kubectl apply -f`. */
export function toYaml(objects: readonly K8sObject[]): string {
  // lineWidth 0: the bundle's long lines stay as they are instead of being folded; no aliases, which
  // some tools that read manifests reject.
  return objects.map((o) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}

/** Adds the `k8s` subcommand to the program. */
export function registerK8s(program: Command): void {
  const command = program
    .command('k8s')
    .description('Write k6-operator manifests (ConfigMap, TestRun, results claim) for a distributed bench')
    .argument('<model>', `catalog model (${modelIds().join(', ')})`)
    .argument('[k6-args...]', 'extra k6 flags for every runner, after --');
  addSettingOptions(command, 'k8s');
  command
    .option(
      '--parallelism <n>',
      'k6 runners (pods); each runs its execution segment',
      wholeNumber('--parallelism', 1),
      2,
    )
    .option('--name <name>', 'object name prefix; default k6-triton-<model>')
    .option('--namespace <ns>', 'namespace of every object')
    .option('--runner-image <image>', 'k6 image of the runners', 'grafana/k6:latest')
    .option(
      '--tool-image <image>',
      'image with k6-triton (k8s/Dockerfile) that generates large payload sets',
      'k6-triton:0.1.0',
    )
    .option('--cpu <q>', 'CPU request and limit per runner', '2')
    .option('--memory <q>', 'memory request and limit per runner', '2Gi')
    .option(
      '--results-claim <name>',
      'PersistentVolumeClaim (ReadWriteMany) for the samples; default <name>-results',
    )
    .option('--results-size <q>', 'size of that claim', '5Gi')
    .option('--count <n>', 'requests in the payload set', wholeNumber('--count', 1))
    .option('--seed <n>', 'payload seed', wholeNumber('--seed', 0))
    .option(
      '--headers-secret <name>',
      'existing Secret whose HEADERS key holds the runners\' headers ("Name:value,..."); without it --headers and --headers-file are written into a Secret <name>-headers',
    )
    .option('--generate-payloads', 'generate payloads in the runners even when they fit a ConfigMap')
    .option('--out <file>', 'write the YAML here instead of stdout')
    .action(async (model: string, k6Args: string[], flags: Record<string, unknown>) => {
      const input = await k8sInput({
        model,
        settings: runSettings(flags, process.env),
        parallelism: flags.parallelism as number,
        ...(flags.name ? { name: String(flags.name) } : {}),
        ...(flags.namespace ? { namespace: String(flags.namespace) } : {}),
        runnerImage: String(flags.runnerImage),
        toolImage: String(flags.toolImage),
        resources: { cpu: String(flags.cpu), memory: String(flags.memory) },
        ...(flags.resultsClaim ? { resultsClaim: String(flags.resultsClaim) } : {}),
        resultsSize: String(flags.resultsSize),
        ...(flags.count !== undefined ? { count: flags.count as number } : {}),
        ...(flags.seed !== undefined ? { seed: flags.seed as number } : {}),
        ...(flags.headersSecret !== undefined ? { headersSecret: String(flags.headersSecret) } : {}),
        generatePayloads: Boolean(flags.generatePayloads),
        extraArguments: k6Args,
      });
      const text = toYaml(benchManifests(input));
      if (flags.out) {
        // A manifest not written is said at the end of the output, exit 94 (report/not-written.ts).
        if ((await writeResult(String(flags.out), text)) === undefined)
          console.error(`manifests: ${flags.out} (kubectl apply -f ${flags.out})`);
      } else process.stdout.write(text);
    });
}
