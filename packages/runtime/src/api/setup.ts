/**
 * /v1/setup and /v1/teardown: GET /v1/setup gives setup()'s data as k6 does; running setup() or
 * teardown() on demand and replacing the setup data (POST/PUT) are not available on the Node runtime
 * and answer 501 in k6's error document.
 */
import type { ServerResponse } from 'node:http';
import { apiError, writeJson } from './jsonapi.ts';
import type { RunApi } from './types.ts';

/** GET /v1/setup: `attributes` is `{}` before setup() returned, else `{"data": <its result>}`. */
export async function getSetup(api: RunApi, res: ServerResponse): Promise<void> {
  const { setupJson } = await api.snapshot();
  const attributes = setupJson === null ? {} : { data: JSON.parse(setupJson) as unknown };
  writeJson(res, { data: { type: 'setupData', id: 'default', attributes } }, 'application/json');
}

/** POST/PUT /v1/setup, POST /v1/teardown: refused, naming what is missing. */
export function notAvailable(res: ServerResponse, what: string): void {
  apiError(res, 'Not Implemented', `${what} is not available on the Node runtime; run with k6`, 501);
}
