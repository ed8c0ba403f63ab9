/**
 * Fetches a model's metadata and config from a KServe v2 HTTP endpoint and builds a catalog entry
 * with models/live.ts, so `k6-triton payloads --url` works for any served model.
 */
import { type LiveConfigJson, liveModelEntry, type ModelMetadataJson } from '../models/live.ts';
import type { ModelEntry } from '../models/types.ts';
import { joinUrl, KSERVE_PATHS } from '../lib/kserve/paths.ts';

async function getJson(url: string, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new Error(
      `cannot reach ${url} for the ${what}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {}
    throw new Error(`GET ${url} answered ${res.status}: ${message.slice(0, 200)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`GET ${url} did not answer JSON`);
  }
}

/** GET <url>/v2/models/<model>[/versions/<v>] and …/config, then liveModelEntry(). */
export async function fetchLiveEntry(baseUrl: string, model: string, version?: string): Promise<ModelEntry> {
  const url = (path: string) => joinUrl(baseUrl, path);
  const metadata = (await getJson(
    url(KSERVE_PATHS.modelMetadata(model, version)),
    'model metadata',
  )) as ModelMetadataJson;
  const config = (await getJson(
    url(KSERVE_PATHS.modelConfig(model, version)),
    'model config',
  )) as LiveConfigJson;
  return liveModelEntry(metadata, config);
}
