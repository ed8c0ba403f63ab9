// Thresholds on a metric, its sub-metrics (tags) and checks; one fails, so the exit code is 99.
import { check } from 'k6';
import { Trend } from 'k6/metrics';

const waiting = new Trend('waiting_ms');

export const options = {
  iterations: 4,
  thresholds: {
    waiting_ms: ['max<100', 'avg>0'],
    'waiting_ms{kind:slow}': ['avg<20'],
    'waiting_ms{kind:fast}': ['avg<20'],
    'checks{which:a}': ['rate==1'],
    checks: ['rate>0.4', 'rate==1'],
    iterations: ['count==4'],
  },
};

export default function () {
  waiting.add(10, { kind: 'fast' });
  waiting.add(50, { kind: 'slow' });
  check(1, { ok: () => true }, { which: 'a' });
  check(0, { bad: (v) => v === 1 });
}
