// exec.vu.metrics.metadata: a custom metric's samples carry the VU's metadata to --out json while it is set.
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const records = new Counter('agreement_records');

export const options = { vus: 1, iterations: 3 };

export default function () {
  exec.vu.metrics.metadata.request = JSON.stringify({
    iteration: exec.scenario.iterationInTest,
    chunks: [1, 2],
  });
  exec.vu.metrics.metadata.n = exec.scenario.iterationInTest;
  records.add(1);
  delete exec.vu.metrics.metadata.request;
  delete exec.vu.metrics.metadata.n;
  records.add(2);
}
