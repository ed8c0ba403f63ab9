/**
 * A config whose outputs are too large to answer is refused at load (issue 40: an override giving a model
 * `backend: "simulated"` and output dims [1,50000000] made the next JSON inference block the server for 29 s),
 * and the version served before keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { http, makeRepository, removeRepository, start } from '../helpers.ts';
import { NOBATCH } from '../repo-fixtures.ts';

describe('output sizes at load', () => {
  let repo: string;
  let server: RunningServer;
  beforeAll(async () => {
    repo = makeRepository({ nobatch: NOBATCH });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['nobatch'] });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it('refuses an override with a 50,000,000-element output, in the form of Triton load errors', async () => {
    const config = (await http(server, 'GET', '/v2/models/nobatch/config')).json();
    const huge = {
      ...config,
      backend: 'simulated',
      output: [{ ...config.output[0], dims: [1, 50_000_000] }],
    };
    const load = await http(
      server,
      'POST',
      '/v2/repository/models/nobatch/load',
      JSON.stringify({ parameters: { config: JSON.stringify(huge) } }),
    );
    expect(load.status).toBe(400);
    expect(load.json().error).toBe(
      "load failed for model 'nobatch': version 1 is at UNAVAILABLE state: Invalid argument: unable to load model " +
        "'nobatch', output 'output' with dims [1,50000000] has 50000000 elements per request at batch size 1, more " +
        'than the 16777216 the embedded server answers;\n',
    );
    const after = (await http(server, 'GET', '/v2/models/nobatch/config')).json();
    expect(after.output[0].dims).toEqual([1, 10]);
    expect((await http(server, 'GET', '/v2/models/nobatch/ready')).status).toBe(200);
  });
});
