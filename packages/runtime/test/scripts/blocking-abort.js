// exec.test.abort() from a blocking VU stops the test (exit 108), as in k6.
import http from 'k6/http';
import exec from 'k6/execution';

export const options = { vus: 1, iterations: 50 };

export default function () {
  [0].forEach(() => {
    http.get(`${__ENV.BASE}/a`);
  });
  if (exec.scenario.iterationInTest === 2) exec.test.abort('enough');
}
