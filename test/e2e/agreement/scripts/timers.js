// Timers as k6 runs them: an iteration ends only when its timers are done (a setInterval until
// cleared, nested timeouts, the global and the k6/timers functions alike), callbacks see their own
// iteration, and a timer set after a bare sleep() starts when the sleep ends.
import { check, sleep } from 'k6';
import { Counter } from 'k6/metrics';
import { setTimeout as k6SetTimeout } from 'k6/timers';

const ticks = new Counter('ticks');
const timeouts = new Counter('timeouts');

export const options = {
  scenarios: { timers: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } },
  thresholds: { checks: ['rate==1'], ticks: ['count==12'], timeouts: ['count==16'] },
};

export default function () {
  const iter = __ITER;
  const t0 = Date.now();
  let n = 0;
  const id = setInterval(() => {
    ticks.add(1);
    n += 1;
    if (n === 3) clearInterval(id);
  }, 20);
  setTimeout(() => {
    timeouts.add(1);
    k6SetTimeout(() => {
      timeouts.add(1);
      check(null, { 'a nested timer sees its iteration': () => __ITER === iter });
    }, 30);
  }, 30);
  sleep(0.2);
  k6SetTimeout(() => {
    timeouts.add(1);
    check(null, { 'a timer set after sleep starts after it': () => Date.now() - t0 >= 240 });
  }, 50);
  const cancelled = setTimeout(() => timeouts.add(100), 10);
  clearTimeout(cancelled);
  setTimeout(() => timeouts.add(1), 0);
}
