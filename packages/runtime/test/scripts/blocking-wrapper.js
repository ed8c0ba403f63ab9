// Synchronous k6/http calls the loader cannot await (a forEach callback, a getter, a describe()-style
// wrapper): the VUs run in blocking mode, each on its own thread, and exec.instance reads the run's counters.
import http from 'k6/http';
import { check, group } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const calls = new Counter('wrapper_calls');
const describe = (name, fn) => group(name, fn);
const site = {
  get home() {
    return http.get(`${__ENV.BASE}/home`);
  },
};

export const options = { vus: 2, iterations: 4 };

export default function () {
  ['/a', '/b'].forEach((p) => {
    check(http.get(`${__ENV.BASE}${p}`), { 'list 200': (r) => r.status === 200 });
  });
  describe('wrapped', () => {
    check(site.home, { 'getter 200': (r) => r.status === 200 });
    calls.add(1);
  });
  // exec.instance in a VU's thread: the run's counters as of the iteration's start.
  check(exec.instance, {
    'instance counters': (i) => i.vusInitialized === 2 && i.vusActive === 2 && i.currentTestRunDuration > 0,
  });
}
