// CLI flags over script options: -u/-i replace the script's shortcut, -e fills __ENV.
import { check } from 'k6';
export const options = { vus: 1, duration: '1m' };
export default function () {
  check(__ENV.WHO, { 'env from -e': (w) => w === 'cli' });
}
