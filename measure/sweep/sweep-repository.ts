/**
 * Triton's repository API as the sweep uses it, over plain fetch: read a model's config, load it with a
 * config override (explicit model-control mode), as Model Analyzer does.
 */
import { joinUrl, KSERVE_PATHS } from '../../lib/kserve/paths.ts';

type Json = Record<string, unknown>;

/** A load or config call can take a while on a real Triton (the model is reloaded), but not forever. */
const REQUEST_TIMEOUT_MS = 120_000;

async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return String((JSON.parse(text) as { error?: unknown }).error ?? text);
  } catch {
    return text;
  }
}

/** GET /v2/models/<m>/config; throws one line that says how to get a server the sweep can use. */
export async function readModelConfig(url: string, model: string): Promise<Json> {
  const target = joinUrl(url, KSERVE_PATHS.modelConfig(model));
  let response: Response;
  try {
    response = await fetch(target, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`could not reach ${target} (${(error as Error).message}); check --url`);
  }
  if (!response.ok)
    throw new Error(
      `GET ${target}: ${response.status} ${await errorText(response)}; start Triton with --model-control-mode=explicit --load-model=${model}`,
    );
  return (await response.json()) as Json;
}

/** POST /v2/repository/models/<m>/load with the whole config as the override; throws the server's reason. */
export async function loadModelConfig(url: string, model: string, config: Json): Promise<void> {
  const target = joinUrl(url, KSERVE_PATHS.repositoryLoad(model));
  const response = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ parameters: { config: JSON.stringify(config) } }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!response.ok) {
    const reason = await errorText(response);
    const hint = /polling|explicit/i.test(reason) ? '; start Triton with --model-control-mode=explicit' : '';
    throw new Error(`POST ${target}: ${response.status} ${reason}${hint}`);
  }
}
