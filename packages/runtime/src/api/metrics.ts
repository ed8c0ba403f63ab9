/** GET /v1/metrics and /v1/metrics/{id}: k6's metric documents. */
import type { ServerResponse } from 'node:http';
import { apiError, SNIFFED_TYPE, writeJson } from './jsonapi.ts';
import type { LiveMetric, RunApi } from './types.ts';

function metricData(m: LiveMetric): unknown {
  return {
    type: 'metrics',
    id: m.id,
    attributes: { type: m.type, contains: m.contains, tainted: m.tainted, sample: m.sample },
  };
}

/** GET /v1/metrics: every observed metric (and every metric with thresholds). */
export async function getMetrics(api: RunApi, res: ServerResponse): Promise<void> {
  const { metrics } = await api.snapshot();
  writeJson(res, { data: metrics.map(metricData) }, SNIFFED_TYPE);
}

/** GET /v1/metrics/{id}: one metric, or k6's 404. */
export async function getMetric(api: RunApi, id: string, res: ServerResponse): Promise<void> {
  const m = (await api.snapshot()).metrics.find((x) => x.id === id);
  if (!m) return apiError(res, 'Not Found', 'No metric with that ID was found', 404);
  writeJson(res, { data: metricData(m) }, SNIFFED_TYPE);
}
