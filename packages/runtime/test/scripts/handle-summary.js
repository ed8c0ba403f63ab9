// handleSummary(data) with k6's data object; its map goes to stdout and to files.
import { check } from 'k6';
export const options = {
  iterations: 3,
  summaryTrendStats: ['avg', 'p(99)', 'count'],
  thresholds: { iteration_duration: ['p(99)<10000'], checks: [{ threshold: 'rate==1', abortOnFail: false }] },
};
export default function () {
  check(1, { 'is one': (v) => v === 1 });
}
export function handleSummary(data) {
  return {
    stdout: `custom summary: ${Object.keys(data.metrics).length} metrics\n`,
    [__ENV.SUMMARY_FILE]: JSON.stringify(data),
  };
}
