// A stream still open when gracefulStop (0s) ends its scenario: k6 cancels it with the VU's context, so its
// late answer is heard by nobody, not by the next scenario that reuses the VU.
import exec from 'k6/execution';
import grpc from 'k6/net/grpc';
import { Counter } from 'k6/metrics';
import { sleep } from 'k6';

const heard = new Counter('late_answers');
const client = new grpc.Client();
client.load(['../../../../packages/runtime/test/fixtures'], 'echo.proto');

export const options = {
  scenarios: {
    warm: {
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      maxDuration: '1s',
      gracefulStop: '0s',
      exec: 'slow',
    },
    level: { executor: 'per-vu-iterations', vus: 1, iterations: 4, startTime: '1100ms', exec: 'idle' },
  },
};

export function slow() {
  client.connect(__ENV.GRPC_ADDR, { plaintext: true });
  const stream = new grpc.Stream(client, 'k6t.echo.Echo/Chat');
  stream.on('data', () => heard.add(1, { in_scenario: exec.scenario.name }));
  stream.write({ textValue: 'late', delayMs: 1500 });
  stream.end();
}

export function idle() {
  sleep(0.3);
}
