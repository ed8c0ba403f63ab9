// One closed-loop level against a server that answers after a timer; BUSY_MS of busy work per
// iteration stands for a load generator that costs more than the request.
import http from 'k6/http';

export const options = {
  summaryTrendStats: ['avg', 'p(95)', 'count'],
  scenarios: { c1: { executor: 'constant-vus', vus: 1, duration: '2s' } },
  thresholds: {
    'http_req_duration{scenario:c1}': ['max>=0'],
    'iteration_duration{scenario:c1}': ['max>=0'],
  },
};

const busy_ms = Number(__ENV.BUSY_MS || 0);

export default async function () {
  await http.asyncRequest('POST', __ENV.URL, 'x');
  const until = Date.now() + busy_ms;
  while (Date.now() < until) {
    // spin: the generator's own work
  }
}
