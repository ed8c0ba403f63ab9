/**
 * `k6-triton k8s` manifests for every catalog model, validated against the TestRun CRD's schema made strict
 * (crd.ts): a field the CRD does not declare is an error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { toYaml } from '../../cli/k8s.ts';
import { program } from '../../cli/main.ts';
import { k8sInput } from '../../measure/k8s/inputs.ts';
import { benchManifests, type K8sObject } from '../../measure/k8s/manifests.ts';
import { CONFIGMAP_LIMIT_BYTES } from '../../measure/k8s/payload-fit.ts';
import { modelIds } from '../../models/index.ts';
import { ensurePayloads } from '../../payloads/index.ts';
import { testRunValidator } from './crd.ts';

const validate = testRunValidator();

const BASE = {
  settings: { TRITON_URL: 'http://triton.inference:8000', PROTOCOL: 'http' },
  parallelism: 4,
  runnerImage: 'grafana/k6:latest',
  toolImage: 'k6-triton:0.1.0',
  resources: { cpu: '2', memory: '2Gi' },
  resultsSize: '5Gi',
};

/** The parts of a TestRun's spec the assertions read. */
interface RunSpec {
  parallelism: number;
  arguments: string;
  script: { configMap: { file: string } };
  runner: {
    env: { name: string; value?: string; valueFrom?: unknown }[];
    initContainers?: { image: string; args: string[] }[];
  };
}

function byKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

/** Bytes a ConfigMap's data and binaryData take (what the 1 MiB limit counts). */
function configMapBytes(cm: K8sObject): number {
  let bytes = 0;
  for (const field of ['data', 'binaryData'] as const) {
    for (const [k, v] of Object.entries((cm[field] ?? {}) as Record<string, string>)) {
      bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
    }
  }
  return bytes;
}

describe('k8s manifests', () => {
  it('the strict schema rejects what the CRD does not declare', () => {
    expect(validate({ apiVersion: 'k6.io/v1alpha1', kind: 'TestRun', metadata: {}, spec: {} })).toBe(false);
    const bad = {
      apiVersion: 'k6.io/v1alpha1',
      kind: 'TestRun',
      metadata: { name: 'x' },
      spec: { parallelism: 2, script: { configMap: { name: 'x' } }, runner: { cpuLimit: '2' } },
    };
    expect(validate(bad)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('cpuLimit');
  });

  for (const model of modelIds()) {
    it(`${model}: the TestRun matches the CRD's schema and every ConfigMap fits 1 MiB`, async () => {
      const objects = benchManifests(await k8sInput({ ...BASE, model }));
      const [run] = byKind(objects, 'TestRun');
      const ok = validate(run);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
      const spec = run!.spec as RunSpec;
      expect(spec.parallelism).toBe(4);
      expect(spec.arguments).toContain('--out json=/results/$(K6_TRITON_RUNNER).json');
      const env = Object.fromEntries(spec.runner.env.map((e) => [e.name, e.value ?? e.valueFrom]));
      expect(env.TRITON_URL).toBe('http://triton.inference:8000');
      expect(env.PAYLOAD).toBe('/payloads/manifest.json');
      expect(env.THRESHOLDS).toBe('/test/budget.json');
      expect(env.K6_TRITON_RUNNER).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
      const [script] = byKind(objects, 'ConfigMap');
      expect(Object.keys(script!.data as object)).toContain(spec.script.configMap.file);
      for (const cm of byKind(objects, 'ConfigMap')) {
        expect(configMapBytes(cm)).toBeLessThanOrEqual(CONFIGMAP_LIMIT_BYTES);
        for (const key of [...Object.keys(cm.data ?? {}), ...Object.keys(cm.binaryData ?? {})]) {
          expect(key).toMatch(/^[-._a-zA-Z0-9]+$/);
        }
      }
      // Either the set is in a ConfigMap or an init container makes it; never neither.
      const inline = byKind(objects, 'ConfigMap').length === 2;
      expect(inline).toBe(!spec.runner.initContainers);
      // The YAML stream parses back to the same objects.
      const docs = parseAllDocuments(toYaml(objects)).map((d) => d.toJS());
      expect(docs).toEqual(JSON.parse(JSON.stringify(objects)));
    });
  }

  it('small sets travel in the ConfigMap byte for byte; large ones are regenerated from the seed', async () => {
    const mnist = benchManifests(await k8sInput({ ...BASE, model: 'mnist', count: 4, seed: 7 }));
    const payloads = byKind(mnist, 'ConfigMap')[1]!;
    const set = await ensurePayloads({ model: 'mnist', count: 4, seed: 7 });
    const first = readFileSync(join(set.dir, '000000.input.1.bin'));
    expect(
      Buffer.from((payloads.binaryData as Record<string, string>)['000000.input.1.bin']!, 'base64'),
    ).toEqual(first);
    expect(JSON.parse((payloads.data as Record<string, string>)['manifest.json']!).seed).toBe(7);

    const dlrm = benchManifests(await k8sInput({ ...BASE, model: 'dlrm', count: 4, seed: 7 }));
    const init = (byKind(dlrm, 'TestRun')[0]!.spec as RunSpec).runner.initContainers![0]!;
    expect(init.image).toBe('k6-triton:0.1.0');
    expect(init.args[0]).toContain(
      "k6-triton payloads '--model' 'dlrm' '--batch' '4096' '--count' '4' '--seed' '7'",
    );
    // Every flag the init container gives payloads is one the payloads command takes.
    const call = /k6-triton payloads ([^|]*)\|/.exec(init.args[0]!)![1]!;
    const payloadsCommand = program().commands.find((c) => c.name() === 'payloads')!;
    const known = payloadsCommand.options.flatMap((o) => [o.long, o.short]);
    const used = [...call.matchAll(/(?:^|\s)'?(--?[a-z][\w-]*)'?/g)].map((m) => m[1]);
    expect(used).toContain('--out');
    for (const flag of used) expect(known, flag).toContain(flag);
  });

  it('bad input is one line naming the setting', async () => {
    await expect(k8sInput({ ...BASE, model: 'mnist', settings: {} })).rejects.toThrow(/--url/);
    await expect(k8sInput({ ...BASE, model: 'mnist', parallelism: 0 })).rejects.toThrow(/--parallelism/);
    await expect(
      k8sInput({ ...BASE, model: 'mnist', settings: { ...BASE.settings, CONCURRENCY: 'lots' } }),
    ).rejects.toThrow(/CONCURRENCY/);
    await expect(k8sInput({ ...BASE, model: 'nope' })).rejects.toThrow(/unknown model "nope"/);
  });
});
