/**
 * The Kubernetes objects of a bench on grafana's k6-operator, as plain data (k8s.ts writes them as YAML).
 * Pure: the bundle, the budget and the payload files come in as bytes, so tests build every model's
 * manifests without a cluster. Each runner writes its raw samples (`--out json`) to a shared volume, and
 * `k6-triton merge` turns the N files into one report: k6-operator itself cannot merge percentiles.
 * Request headers reach the runners from a Secret only, so no other object carries their values.
 */
import { HEADERS_KEY, type HeadersSecret } from './headers.ts';

/** A Kubernetes object as we write it. */
export type K8sObject = { apiVersion: string; kind: string; metadata: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** Where payloads come from inside a runner. */
export type PayloadSource =
  /** Small sets: the files themselves, in a ConfigMap (binaryData). */
  | { kind: 'configmap'; files: Record<string, Uint8Array> }
  /** Sets a ConfigMap cannot hold: an init container runs `k6-triton payloads` from the seed. */
  | { kind: 'generate'; image: string; args: string[] };

/** Everything the manifests need. */
export interface ManifestInput {
  /** Object name prefix, e.g. `k6-triton-mnist` (a DNS label). */
  name: string;
  namespace?: string;
  /** Bundle file name and text (dist/<scenario>.js), and its source map's text when there is one. */
  script: { file: string; text: string; sourceMap?: string };
  /** Budget file text (thresholds/<model>.json). */
  budget: string;
  payloads: PayloadSource;
  /** k6 runners; k6-operator gives each its execution segment. */
  parallelism: number;
  /** Scenario environment (TRITON_URL, PROTOCOL, CONCURRENCY, ...), without PAYLOAD, THRESHOLDS and headers. */
  env: Record<string, string>;
  /** The Secret the runners' HEADERS come from; written among the objects when it has a value. */
  headers?: HeadersSecret;
  /** k6 image of the runners. */
  runnerImage: string;
  /** Runner requests and limits, e.g. { cpu: '2', memory: '2Gi' }. */
  resources: { cpu: string; memory: string };
  /** PersistentVolumeClaim the runners write their samples to (ReadWriteMany, written by every runner). */
  resultsClaim: string;
  /** Size of that claim, e.g. '5Gi'. */
  resultsSize: string;
  /** More k6 flags for every runner. */
  extraArguments?: string[];
}

/** Mount points inside a runner; k6-operator mounts the script's ConfigMap at /test itself. */
export const PATHS = {
  script: '/test',
  payloads: '/payloads',
  results: '/results',
} as const;

/** Environment variable holding the runner's pod name (downward API): its samples file is named after it. */
export const RUNNER_VAR = 'K6_TRITON_RUNNER';
/** The budget file's key in the script's ConfigMap. */
export const BUDGET_KEY = 'budget.json';

/** The k6 flags of every runner: raw samples to its own file on the shared volume, for `k6-triton merge`. */
export function runnerArguments(extra: readonly string[] = []): string {
  // Kubernetes expands $(VAR) from the container's env in its command, so each runner gets its own file.
  return [`--out`, `json=${PATHS.results}/$(${RUNNER_VAR}).json`, ...extra].join(' ');
}

function metadata(input: ManifestInput, name: string): Record<string, unknown> {
  return {
    name,
    ...(input.namespace ? { namespace: input.namespace } : {}),
    labels: { 'app.kubernetes.io/name': 'k6-triton', 'app.kubernetes.io/instance': input.name },
  };
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The script ConfigMap: the bundle, its source map and the budget file. */
function scriptConfigMap(input: ManifestInput): K8sObject {
  const { file, text, sourceMap } = input.script;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(input, input.name),
    data: {
      [file]: text,
      // The bundle names `<file>.map` beside it: with the map, k6 reports errors at TypeScript lines
      // instead of warning that it cannot load it.
      ...(sourceMap !== undefined ? { [`${file}.map`]: sourceMap } : {}),
      [BUDGET_KEY]: input.budget,
    },
  };
}

/** The payload ConfigMap, when the set fits one. */
function payloadConfigMap(input: ManifestInput, files: Record<string, Uint8Array>): K8sObject {
  const binaryData: Record<string, string> = {};
  const data: Record<string, string> = {};
  for (const [file, bytes] of Object.entries(files)) {
    // JSON (the manifest) stays readable; tensors go base64.
    if (file.endsWith('.json')) data[file] = Buffer.from(bytes).toString('utf8');
    else binaryData[file] = base64(bytes);
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(input, `${input.name}-payloads`),
    data,
    binaryData,
  };
}

/** The Secret holding the runners' HEADERS: the one object that carries header values. */
function headersSecretObject(input: ManifestInput, secret: HeadersSecret & { value: string }): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(input, secret.name),
    type: 'Opaque',
    data: { [HEADERS_KEY]: Buffer.from(secret.value, 'utf8').toString('base64') },
  };
}

/** The claim every runner writes its samples file to. */
function resultsClaim(input: ManifestInput): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: metadata(input, input.resultsClaim),
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: input.resultsSize } } },
  };
}

/** The init container that generates a set too big for a ConfigMap, then copies it flat into /payloads. */
function generator(source: Extract<PayloadSource, { kind: 'generate' }>): Record<string, unknown> {
  const args = source.args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return {
    name: 'payloads',
    image: source.image,
    command: ['sh', '-c'],
    // `k6-triton payloads` prints the manifest's path last; the set's files sit beside it.
    args: [
      `set -e; m=$(k6-triton payloads ${args} --out /tmp/payload-cache | tail -n 1); cp "$(dirname "$m")"/* ${PATHS.payloads}/`,
    ],
    volumeMounts: [{ name: 'payloads', mountPath: PATHS.payloads }],
  };
}

/** The TestRun (k6.io/v1alpha1) that starts `parallelism` runners of the bundle. */
function testRun(input: ManifestInput): K8sObject {
  const env = [
    { name: RUNNER_VAR, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ...Object.entries(input.env).map(([name, value]) => ({ name, value })),
    // By reference: the value stays in the Secret.
    ...(input.headers
      ? [{ name: 'HEADERS', valueFrom: { secretKeyRef: { name: input.headers.name, key: HEADERS_KEY } } }]
      : []),
    { name: 'PAYLOAD', value: `${PATHS.payloads}/manifest.json` },
    { name: 'THRESHOLDS', value: `${PATHS.script}/${BUDGET_KEY}` },
  ];
  const payloadVolume =
    input.payloads.kind === 'configmap'
      ? { name: 'payloads', configMap: { name: `${input.name}-payloads` } }
      : { name: 'payloads', emptyDir: {} };
  const resources = { cpu: input.resources.cpu, memory: input.resources.memory };
  return {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: metadata(input, input.name),
    spec: {
      parallelism: input.parallelism,
      script: { configMap: { name: input.name, file: input.script.file } },
      arguments: runnerArguments(input.extraArguments),
      runner: {
        image: input.runnerImage,
        env,
        resources: { requests: resources, limits: resources },
        ...(input.payloads.kind === 'generate' ? { initContainers: [generator(input.payloads)] } : {}),
        volumes: [
          payloadVolume,
          { name: 'results', persistentVolumeClaim: { claimName: input.resultsClaim } },
        ],
        volumeMounts: [
          { name: 'payloads', mountPath: PATHS.payloads },
          { name: 'results', mountPath: PATHS.results },
        ],
      },
    },
  };
}

/** All objects, in the order `kubectl apply -f` should create them. */
export function benchManifests(input: ManifestInput): K8sObject[] {
  for (const name of ['HEADERS', 'HEADERS_FILE'])
    if (name in input.env) throw new Error(`${name} must reach the runners through input.headers, not env`);
  const secret = input.headers;
  return [
    ...(secret?.value !== undefined ? [headersSecretObject(input, { ...secret, value: secret.value })] : []),
    scriptConfigMap(input),
    ...(input.payloads.kind === 'configmap' ? [payloadConfigMap(input, input.payloads.files)] : []),
    resultsClaim(input),
    testRun(input),
  ];
}
