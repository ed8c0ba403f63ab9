// A crossed threshold: exit code 99, verdict ok:false in the summary data.
import { Trend } from 'k6/metrics';
const t = new Trend('waiting_time', true);
export const options = { iterations: 5, thresholds: { waiting_time: ['p(95)<100', 'max>=0'] } };
export default function () {
  t.add(500);
}
