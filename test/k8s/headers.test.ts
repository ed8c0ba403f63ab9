/**
 * Request headers on k6-operator: `k6-triton k8s` puts a bearer token and custom headers (--headers-file,
 * --headers) into a Secret and the TestRun reads them by secretKeyRef, so no other manifest carries a value;
 * --headers-secret names a Secret the user made and writes none. The TestRun stays valid against the CRD.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toYaml } from '../../cli/k8s.ts';
import { k8sInput } from '../../measure/k8s/inputs.ts';
import { benchManifests, type K8sObject } from '../../measure/k8s/manifests.ts';
import { parseHeaders } from '../../scenarios/kit/settings.ts';
import { operatorEnv } from '../merge/k6-operator.ts';
import { testRunValidator } from './crd.ts';

const validate = testRunValidator();
const TOKEN = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.Zm9vYmFy';
const TENANT = 'tenant-7f3a9c';

const BASE = {
  model: 'mnist',
  parallelism: 2,
  runnerImage: 'grafana/k6:latest',
  toolImage: 'k6-triton:0.1.0',
  resources: { cpu: '2', memory: '2Gi' },
  resultsSize: '5Gi',
};
const URL_SETTINGS = { TRITON_URL: 'http://triton.inference:8000' };

/** A headers file as a user writes one: a comment, a bearer token, a custom header. */
function headersFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'k6t-headers-')), 'auth.txt');
  writeFileSync(path, `# the cluster's token\nAuthorization: ${TOKEN}\n\nX-Tenant: ${TENANT}\n`);
  return path;
}

async function manifests(settings: Record<string, string>, headersSecret?: string): Promise<K8sObject[]> {
  return benchManifests(
    await k8sInput({
      ...BASE,
      settings: { ...URL_SETTINGS, ...settings },
      ...(headersSecret ? { headersSecret } : {}),
    }),
  );
}

/** Every form a value could take in a manifest: as given, and base64 (a Secret's data, a ConfigMap's binaryData). */
function forms(value: string): string[] {
  return [value, Buffer.from(value).toString('base64')];
}

/** The objects' YAML without the Secret, which must not name any header value. */
function elsewhere(objects: K8sObject[]): string {
  return toYaml(objects.filter((o) => o.kind !== 'Secret'));
}

function testRun(objects: K8sObject[]): K8sObject {
  return objects.find((o) => o.kind === 'TestRun')!;
}

describe('k8s: request headers in a Secret', () => {
  it('--headers-file: the values are in the Secret only, and the runners read them by secretKeyRef', async () => {
    const objects = await manifests({ HEADERS_FILE: headersFile() });
    const secrets = objects.filter((o) => o.kind === 'Secret');
    expect(secrets.map((s) => s.metadata.name)).toEqual(['k6-triton-mnist-headers']);
    // Applied before the TestRun whose runners need it.
    expect(objects[0]!.kind).toBe('Secret');
    const secret = secrets[0]!;
    expect(secret.type).toBe('Opaque');
    const stored = Buffer.from((secret.data as Record<string, string>).HEADERS!, 'base64').toString();
    expect(parseHeaders(stored)).toEqual({ Authorization: TOKEN, 'X-Tenant': TENANT });
    for (const value of [TOKEN, TENANT, 'eyJhbGciOiJIUzI1NiJ9'])
      for (const form of forms(value)) expect(elsewhere(objects)).not.toContain(form);
    const run = testRun(objects);
    expect(validate(run), JSON.stringify(validate.errors)).toBe(true);
    const env = (run.spec as { runner: { env: { name: string }[] } }).runner.env;
    expect(env.find((e) => e.name === 'HEADERS')).toEqual({
      name: 'HEADERS',
      valueFrom: { secretKeyRef: { name: 'k6-triton-mnist-headers', key: 'HEADERS' } },
    });
    // The local file's path means nothing in a pod: HEADERS_FILE is not passed on.
    expect(env.map((e) => e.name)).not.toContain('HEADERS_FILE');
    // A runner, started as the kubelet starts it, sees the headers the scenario sends.
    const runner = operatorEnv(objects, 'k6-triton-mnist-1-abcde');
    expect(parseHeaders(runner.HEADERS)).toEqual({ Authorization: TOKEN, 'X-Tenant': TENANT });
  });

  it('--headers joins the Secret too, and wins on a name as it does in the scenario', async () => {
    const objects = await manifests({
      HEADERS_FILE: headersFile(),
      HEADERS: 'X-Tenant:other-tenant,X-Trace:on',
    });
    expect(elsewhere(objects)).not.toContain('other-tenant');
    expect(elsewhere(objects)).not.toContain(TOKEN);
    const runner = operatorEnv(objects, 'pod');
    expect(parseHeaders(runner.HEADERS)).toEqual({
      Authorization: TOKEN,
      'X-Tenant': 'other-tenant',
      'X-Trace': 'on',
    });
  });

  it("--headers-secret: the TestRun names the user's Secret and no Secret is written", async () => {
    const objects = await manifests({}, 'triton-auth');
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const run = testRun(objects);
    expect(validate(run), JSON.stringify(validate.errors)).toBe(true);
    const mine = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'triton-auth' },
      data: { HEADERS: Buffer.from(`Authorization:${TOKEN}`).toString('base64') },
    };
    expect(operatorEnv(objects, 'pod', [mine]).HEADERS).toBe(`Authorization:${TOKEN}`);
    expect(() => operatorEnv(objects, 'pod')).toThrow(/Secret triton-auth has no key HEADERS/);
  });

  it('without headers there is no Secret and no HEADERS variable', async () => {
    const objects = await manifests({});
    expect(objects.map((o) => o.kind)).not.toContain('Secret');
    expect(JSON.stringify(testRun(objects))).not.toContain('HEADERS');
  });

  it('bad input is one line naming the flag or header, never a value', async () => {
    await expect(manifests({ HEADERS_FILE: headersFile() }, 'triton-auth')).rejects.toThrow(
      /^--headers-secret triton-auth holds the runners' headers; drop --headers-file or --headers-secret$/,
    );
    await expect(manifests({}, 'Triton_Auth')).rejects.toThrow(
      /--headers-secret "Triton_Auth" is not a Kubernetes object name/,
    );
    await expect(manifests({ HEADERS_FILE: '/nonexistent/auth.txt' })).rejects.toThrow(
      /^--headers-file \/nonexistent\/auth\.txt: ENOENT; give a readable file/,
    );
    const comma = join(mkdtempSync(join(tmpdir(), 'k6t-headers-')), 'comma.txt');
    writeFileSync(comma, 'Accept: text/plain, secret-part\n');
    const error = await manifests({ HEADERS_FILE: comma }).catch((e: Error) => e.message);
    expect(error).toMatch(/^header Accept: its value has a comma/);
    expect(error).not.toContain('secret-part');
  });
});
