// sleep() before an exception is slept: k6's sleep blocks, so the throwing iteration lasts 100 ms.
import { sleep } from 'k6';

export const options = { vus: 2, duration: '1s' };

export default function () {
  sleep(0.1);
  throw new Error('boom');
}
