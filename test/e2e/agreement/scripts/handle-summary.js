// handleSummary's data, written to the file named by SUMMARY_FILE.
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const things = new Counter('things');

export const options = {
  iterations: 2,
  thresholds: { things: ['count==4'], 'things{kind:a}': ['count==2'] },
};

export default function () {
  things.add(1, { kind: 'a' });
  things.add(1, { kind: 'b' });
  check(1, { one: () => true });
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY_FILE]: JSON.stringify(data) };
}
