/**
 * The k6-operator emulation the local-runner test starts its runners with: the runner command and env as
 * the operator's own tests state them (pkg/segmentation/suite_test.go, pkg/resources/jobs/runner_test.go),
 * Kubernetes' $(VAR) expansion, and cluster paths mapped to local folders.
 */
import { describe, expect, it } from 'vitest';
import { benchManifests, type ManifestInput } from '../../measure/k8s/manifests.ts';
import {
  expandVars,
  localPath,
  localRunner,
  operatorCommand,
  operatorEnv,
  segmentFlags,
} from './k6-operator.ts';

const INPUT: ManifestInput = {
  name: 'k6-triton-mnist',
  script: { file: 'mnist.js', text: 'export default function () {}' },
  budget: '{}',
  payloads: { kind: 'configmap', files: { 'manifest.json': new TextEncoder().encode('{}') } },
  parallelism: 4,
  env: { TRITON_URL: 'http://triton:8000', CONCURRENCY: '8' },
  runnerImage: 'grafana/k6:latest',
  resources: { cpu: '1', memory: '1Gi' },
  resultsClaim: 'k6-triton-mnist-results',
  resultsSize: '1Gi',
};

describe('k6-operator emulation', () => {
  it('segment flags are the operator’s: runner 1 of 4 is 0:1/4, runner 4 is 3/4:1', () => {
    expect(segmentFlags(1, 4)).toEqual([
      '--execution-segment=0:1/4',
      '--execution-segment-sequence=0,1/4,2/4,3/4,1',
    ]);
    expect(segmentFlags(4, 4)[0]).toBe('--execution-segment=3/4:1');
  });

  it('the runner command follows NewRunnerJob; one runner gets no segment flags', () => {
    const objects = benchManifests(INPUT);
    expect(operatorCommand(objects, 2)).toEqual([
      'k6',
      'run',
      '--quiet',
      '--execution-segment=1/4:2/4',
      '--execution-segment-sequence=0,1/4,2/4,3/4,1',
      '--out',
      'json=/results/$(K6_TRITON_RUNNER).json',
      '/test/mnist.js',
      '--address=0.0.0.0:6565',
      '--paused',
      '--tag',
      'instance_id=2',
      '--tag',
      'testrun_name=k6-triton-mnist',
    ]);
    const single = benchManifests({ ...INPUT, parallelism: 1 });
    expect(operatorCommand(single, 1).some((a) => a.startsWith('--execution-segment'))).toBe(false);
  });

  it('env resolves the pod name; $(VAR) expands as Kubernetes expands it', () => {
    const env = operatorEnv(benchManifests(INPUT), 'k6-triton-mnist-3');
    expect(env.K6_TRITON_RUNNER).toBe('k6-triton-mnist-3');
    expect(env.THRESHOLDS).toBe('/test/budget.json');
    expect(expandVars('json=/results/$(K6_TRITON_RUNNER).json', env)).toBe(
      'json=/results/k6-triton-mnist-3.json',
    );
    expect(expandVars('$$(K6_TRITON_RUNNER) $(NOPE)', env)).toBe('$(K6_TRITON_RUNNER) $(NOPE)');
  });

  it('cluster paths map to local folders, alone or after =, and nothing else does', () => {
    const mounts = new Map([
      ['/test', '/tmp/x/test'],
      ['/results', '/tmp/x/results'],
    ]);
    expect(localPath('/test/mnist.js', mounts)).toBe('/tmp/x/test/mnist.js');
    expect(localPath('json=/results/r.json', mounts)).toBe('json=/tmp/x/results/r.json');
    expect(localPath('/testing/x', mounts)).toBe('/testing/x');
    expect(localPath('http://triton:8000/test', mounts)).toBe('http://triton:8000/test');
    const runner = localRunner(benchManifests(INPUT), 1, mounts);
    expect(runner.args).not.toContain('--paused');
    expect(runner.args).toContain('json=/tmp/x/results/k6-triton-mnist-1.json');
    expect(runner.env.THRESHOLDS).toBe('/tmp/x/test/budget.json');
  });
});
