// Stopped by SIGINT while setup() sleeps: k6 ends setup at once (its context is cancelled), runs neither the
// rest of setup, the iterations nor teardown, and exits 105.
import { sleep } from 'k6';
export const options = { vus: 1, iterations: 1 };
export function setup() {
  console.log('setup sleeping');
  sleep(300);
  console.log('setup went on');
}
export default function () {
  console.log('iterated');
}
export function teardown() {
  console.log('teardown ran');
}
