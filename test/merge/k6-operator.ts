/**
 * What grafana/k6-operator does with a TestRun, done on one machine: each runner's k6 command and
 * environment as the operator builds its Job (pkg/resources/jobs/runner.go, pkg/segmentation at commit
 * e2c9571, the one k8s/k6.io_testruns.yaml comes from), and the
 * ConfigMaps and volumes of the manifests laid out as local folders. The local-runner test starts its
 * runners from this, so it runs the command `k6-triton k8s` writes, not one of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { K8sObject } from '../../measure/k8s/manifests.ts';

/** Where k6-operator mounts the script's ConfigMap in every runner. */
const SCRIPT_MOUNT = '/test';

/** The TestRun fields the operator reads to start runners. */
interface TestRunSpec {
  parallelism: number;
  script: { configMap: { name: string; file: string } };
  arguments?: string;
  runner: {
    env?: {
      name: string;
      value?: string;
      valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
    }[];
    volumes?: { name: string; configMap?: { name: string }; persistentVolumeClaim?: unknown }[];
    volumeMounts?: { name: string; mountPath: string }[];
  };
}

function testRunOf(objects: readonly K8sObject[]): { name: string; spec: TestRunSpec } {
  const run = objects.find((o) => o.kind === 'TestRun');
  if (!run) throw new Error('k6-operator: the manifests have no TestRun');
  return { name: String(run.metadata.name), spec: run.spec as TestRunSpec };
}

/** k6-operator's segment flags for runner `index` (1-based) of `total` (NewCommandFragments). */
export function segmentFlags(index: number, total: number): string[] {
  const point = (i: number) => (i === 0 ? '0' : i === total ? '1' : `${i}/${total}`);
  const sequence = Array.from({ length: total + 1 }, (_, i) => point(i)).join(',');
  return [
    `--execution-segment=${point(index - 1)}:${point(index)}`,
    `--execution-segment-sequence=${sequence}`,
  ];
}

/** The runner Job's name, `<testrun>-<index>`; its pod's name starts with it. */
export const runnerName = (objects: readonly K8sObject[], index: number): string =>
  `${testRunOf(objects).name}-${index}`;

/**
 * Runner `index`'s (1-based) container command as k6-operator builds it, with the default `quiet` and
 * `paused` and a ConfigMap script: k6 run, --quiet, the segment flags (parallelism > 1), the
 * TestRun's `arguments` split on whitespace, the script, the REST API address, --paused and two tags.
 */
export function operatorCommand(objects: readonly K8sObject[], index: number): string[] {
  const { name, spec } = testRunOf(objects);
  return [
    'k6',
    'run',
    '--quiet',
    ...(spec.parallelism > 1 ? segmentFlags(index, spec.parallelism) : []),
    ...(spec.arguments ?? '').split(/\s+/).filter(Boolean),
    `${SCRIPT_MOUNT}/${spec.script.configMap.file}`,
    '--address=0.0.0.0:6565',
    '--paused',
    '--tag',
    `instance_id=${index}`,
    '--tag',
    `testrun_name=${name}`,
  ];
}

/**
 * The runner's environment as the kubelet gives it: the TestRun's env, `fieldRef: metadata.name` resolved to
 * the pod's name and a `secretKeyRef` to its Secret's decoded key, from the manifests or from `secrets` (those
 * already in the cluster).
 */
export function operatorEnv(
  objects: readonly K8sObject[],
  podName: string,
  secrets: readonly K8sObject[] = [],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of testRunOf(objects).spec.runner.env ?? []) {
    const ref = v.valueFrom?.secretKeyRef;
    if (v.value !== undefined) env[v.name] = v.value;
    else if (v.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[v.name] = podName;
    else if (ref) env[v.name] = secretKey([...objects, ...secrets], ref.name, ref.key);
    else throw new Error(`k6-operator: env ${v.name} has a source this emulation lacks`);
  }
  return env;
}

/** A Secret's key, base64-decoded; a pod that names a missing Secret or key does not start. */
function secretKey(objects: readonly K8sObject[], name: string, key: string): string {
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === name);
  const data = (secret?.data ?? {}) as Record<string, string>;
  if (data[key] === undefined) throw new Error(`k6-operator: Secret ${name} has no key ${key}`);
  return Buffer.from(data[key], 'base64').toString('utf8');
}

/** Kubernetes' `$(VAR)` expansion of a command argument from the container's env (`$$` escapes). */
export function expandVars(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name?: string) =>
    name === undefined ? '$' : (env[name] ?? whole),
  );
}

/**
 * Lays the manifests' volumes out under `dir`: the script ConfigMap (bundle, budget) at test/, every
 * ConfigMap volume's files and an empty folder for every claim. Returns mount path → local folder.
 */
export function materialize(objects: readonly K8sObject[], dir: string): Map<string, string> {
  const { spec } = testRunOf(objects);
  const configMaps = new Map(
    objects.filter((o) => o.kind === 'ConfigMap').map((o) => [String(o.metadata.name), o]),
  );
  const writeConfigMap = (name: string, folder: string) => {
    const map = configMaps.get(name);
    if (!map) throw new Error(`k6-operator: the manifests lack ConfigMap ${name}`);
    mkdirSync(folder, { recursive: true });
    for (const [file, text] of Object.entries((map.data ?? {}) as Record<string, string>)) {
      writeFileSync(join(folder, file), text);
    }
    for (const [file, b64] of Object.entries((map.binaryData ?? {}) as Record<string, string>)) {
      writeFileSync(join(folder, file), Buffer.from(b64, 'base64'));
    }
  };
  const mounts = new Map<string, string>();
  const scriptDir = join(dir, 'test');
  writeConfigMap(spec.script.configMap.name, scriptDir);
  mounts.set(SCRIPT_MOUNT, scriptDir);
  for (const mount of spec.runner.volumeMounts ?? []) {
    const volume = spec.runner.volumes?.find((v) => v.name === mount.name);
    const folder = join(dir, mount.name);
    if (volume?.configMap) writeConfigMap(volume.configMap.name, folder);
    else if (volume?.persistentVolumeClaim) mkdirSync(folder, { recursive: true });
    else throw new Error(`k6-operator: volume ${mount.name} has a kind this emulation lacks`);
    mounts.set(mount.mountPath, folder);
  }
  return mounts;
}

/** Rewrites a path inside a runner (alone or after `=`, as in `json=/results/x.json`) to its local folder. */
export function localPath(text: string, mounts: ReadonlyMap<string, string>): string {
  for (const [mountPath, folder] of mounts) {
    const at = new RegExp(`(^|=)${mountPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|$)`);
    if (at.test(text)) return text.replace(at, `$1${folder}`);
  }
  return text;
}

/** One runner as a local process would start it: argv after `k6`, and its environment. */
export interface LocalRunner {
  name: string;
  /** k6's arguments, from `run` on. */
  args: string[];
  env: Record<string, string>;
}

/**
 * Runner `index` (1-based) of the manifests as a local process: the operator's command and env with
 * `$(VAR)` expanded and mount paths mapped to `mounts`. The REST address and --paused are dropped: the
 * operator's starter resumes every paused runner at once over that API; local runners simply start
 * together (several runners on one machine would also need one port each).
 */
export function localRunner(
  objects: readonly K8sObject[],
  index: number,
  mounts: ReadonlyMap<string, string>,
): LocalRunner {
  const name = runnerName(objects, index);
  const podEnv = operatorEnv(objects, name);
  const env = Object.fromEntries(Object.entries(podEnv).map(([k, v]) => [k, localPath(v, mounts)]));
  const args = operatorCommand(objects, index)
    .slice(1)
    .filter((a) => !a.startsWith('--address=') && a !== '--paused')
    .map((a) => localPath(expandVars(a, podEnv), mounts));
  return { name, args, env };
}
