// Three VUs interleave on one event loop, each awaiting timers of different lengths inside its
// iterations: after every await, the k6 globals, k6/execution and a VU tag must still be the VU's own.
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

export const options = {
  scenarios: {
    a: { executor: 'per-vu-iterations', vus: 3, iterations: 4, env: { WHICH: 'a' } },
    b: { executor: 'per-vu-iterations', vus: 2, iterations: 2, startTime: '1s', env: { WHICH: 'b' } },
  },
};

const seen = new Counter('seen');
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default async function () {
  const vu = __VU;
  const iter = __ITER;
  exec.vu.tags.mine = String(vu);
  for (let step = 0; step < 3; step++) {
    await pause(((vu * 7 + step * 3) % 5) + 1);
    check(null, {
      '__VU is the VU': () => __VU === vu && exec.vu.idInTest === vu,
      '__ITER is the iteration': () => __ITER === iter && exec.vu.iterationInScenario === iter,
      '__ENV is the scenario': () => __ENV.WHICH === exec.scenario.name,
      'the VU tag is the VU': () => exec.vu.tags.mine === String(vu),
    });
    seen.add(1, { vu: String(vu) });
  }
}
