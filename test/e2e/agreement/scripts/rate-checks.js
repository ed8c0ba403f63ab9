// A Rate the script names `checks` is k6's checks metric: its samples with a `check` tag are listed
// as checks (in the group their `group` tag names), and every sample counts in the totals.
import { check, group } from 'k6';
import { Rate } from 'k6/metrics';

const checks = new Rate('checks');

export const options = { vus: 1, iterations: 4 };

export default function () {
  checks.add(true, { check: 'recorded through the Rate' });
  checks.add(__ITER % 2 === 0);
  check(null, { 'a built-in check': () => true });
  group('inside', () => {
    checks.add(__ITER !== 0, { check: 'a Rate check in a group' });
  });
}
