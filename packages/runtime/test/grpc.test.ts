import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import grpc, { Client, StatusNotFound, StatusOK, Stream, waitForStreams } from '../src/modules/grpc.ts';
import { followVuAcrossAwaits, runInVu } from '../src/vu-context.ts';
import { type EchoServer, FIXTURES, startEchoServer } from './echo-grpc-server.ts';
import { type FakeVu, fakeVu, samplesOf } from './fake-vu.ts';

// These tests call module functions directly across awaits, where a script's would be bound to its VU.
followVuAcrossAwaits();

let echo: EchoServer;
let addr: string;
let connections = (): number => echo.connections();

beforeAll(async () => {
  echo = await startEchoServer();
  addr = echo.addr;
  connections = () => echo.connections();
});

afterAll(() => echo.stop());

/** A client loaded in a fake init context, as a script's top level would do. */
function loadedClient(): Client {
  const init = fakeVu();
  init.inInit = true;
  const client = new grpc.Client();
  runInVu(init, () => client.load([FIXTURES], 'echo.proto'));
  return client;
}

async function inVu<T>(vu: FakeVu, fn: () => Promise<T>): Promise<T> {
  try {
    return await runInVu(vu, fn);
  } finally {
    await vu.retire();
  }
}

describe('k6/net/grpc', () => {
  it('loads protos only in the init context and lists the methods', () => {
    const init = fakeVu();
    init.inInit = true;
    const client = new Client();
    const infos = runInVu(init, () => client.load([FIXTURES], 'echo.proto'));
    expect(infos.map((m) => m.fullMethod)).toEqual([
      '/k6t.echo.Echo/Echo',
      '/k6t.echo.Echo/Chat',
      '/k6t.echo.Echo/Repeat',
    ]);
    expect(infos[1]).toMatchObject({ package: 'k6t.echo', service: 'Echo', isClientStream: true });
    expect(() => runInVu(fakeVu(), () => client.load([FIXTURES], 'echo.proto'))).toThrow(
      'load must be called in the init context',
    );
  });

  it('round-trips k6 JSON: snake or camel names in, camelCase out, bytes base64, int64 strings, enums', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const raw = Buffer.from([0, 1, 2, 250, 255]);
    const res = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      return client.asyncInvoke('k6t.echo.Echo/Echo', {
        text_value: 'hi',
        rawData: raw.toString('base64'),
        big_number: '9007199254740993',
        bigUnsigned: 18446744073709551615n.toString(),
        color: 'GREEN',
        shape: [1, '3', 224],
        raw_list: [raw.toString('base64')],
        params: { a: { some_label: 'x', count: 2 } },
        inner: { someLabel: 'y' },
        ratio: 0.1,
        precise: 0.1,
        choice_number: 7,
        wrapped: 'w',
      });
    });
    expect(res.status).toBe(StatusOK);
    expect(res.error).toBeNull();
    // The message is decoded on first read but is a plain enumerable field for scripts.
    expect(JSON.parse(JSON.stringify(res)).message.textValue).toBe('hi');
    expect(res.message).toEqual({
      textValue: 'hi',
      rawData: raw.toString('base64'),
      bigNumber: '9007199254740993',
      bigUnsigned: '18446744073709551615',
      color: 'GREEN',
      shape: ['1', '3', '224'],
      rawList: [raw.toString('base64')],
      params: { a: { someLabel: 'x', count: 2 } },
      inner: { someLabel: 'y', count: 0 },
      ratio: 0.1,
      precise: 0.1,
      flag: false,
      choiceNumber: '7',
      failWithCode: 0,
      delayMs: 0,
      wrapped: 'w',
    });
  });

  it('keeps large requests intact when their buffers are reused, sequentially and concurrently', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const big = (fill: number): string => Buffer.alloc(200 * 1024, fill).toString('base64');
    const replies = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      const seq = [];
      for (let i = 1; i <= 3; i++)
        seq.push(await client.asyncInvoke('k6t.echo.Echo/Echo', { raw_data: big(i) }));
      const conc = await Promise.all(
        [4, 5, 6].map((i) => client.asyncInvoke('k6t.echo.Echo/Echo', { raw_data: big(i) })),
      );
      return [...seq, ...conc];
    });
    expect(
      replies.map((r) => (r.message as { rawData: string }).rawData === big(replies.indexOf(r) + 1)),
    ).toEqual([true, true, true, true, true, true]);
  });

  it('emits unpopulated fields with defaults and null for unset messages, as k6 (EmitUnpopulated)', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const res = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      return client.asyncInvoke('/k6t.echo.Echo/Echo', {});
    });
    expect(res.message).toEqual({
      textValue: '',
      rawData: '',
      bigNumber: '0',
      bigUnsigned: '0',
      color: 'COLOR_UNSPECIFIED',
      shape: [],
      rawList: [],
      params: {},
      inner: null,
      ratio: 0,
      precise: 0,
      flag: false,
      failWithCode: 0,
      delayMs: 0,
      wrapped: null,
    });
  });

  it('rejects unknown fields and unknown methods with k6 messages', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    await expect(
      inVu(vu, async () => {
        await client.connect(addr, { plaintext: true });
        return client.asyncInvoke('k6t.echo.Echo/Echo', { nope: 1 });
      }),
    ).rejects.toThrow(/unable to serialise request object to protocol buffer: .*unknown field "nope"/);
    await expect(
      inVu(fakeVu(), async () => {
        await client.connect(addr, { plaintext: true });
        return client.asyncInvoke('k6t.echo.Echo/Missing', {});
      }),
    ).rejects.toThrow('method "/k6t.echo.Echo/Missing" not found in file descriptors');
    await expect(inVu(fakeVu(), () => client.asyncInvoke('k6t.echo.Echo/Echo', {}))).rejects.toThrow(
      'no gRPC connection, you must call connect first',
    );
  });

  it('returns status codes, error objects, metadata headers and trailers', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const [ok, failed] = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      return [
        await client.asyncInvoke('k6t.echo.Echo/Echo', { text_value: 'a' }, { metadata: { 'x-test': 'v1' } }),
        await client.asyncInvoke('k6t.echo.Echo/Echo', { fail_with_code: StatusNotFound }),
      ];
    });
    expect(ok!.headers['x-echo']).toEqual(['v1']);
    expect(ok!.trailers['x-trailer']).toEqual(['yes']);
    expect(ok!.trailers['x-raw-bin']).toEqual(['\x00\xffA', 'hi']);
    expect(ok!.trailers['grpc-status']).toEqual(['0']);
    expect(Object.keys(ok!.headers).some((k) => k.startsWith(':'))).toBe(false);
    expect(failed!.status).toBe(StatusNotFound);
    expect(failed!.status).toBe(grpc.StatusNotFound);
    expect(failed!.message).toBeNull();
    expect(failed!.error).toEqual({ code: 5, message: 'failed on purpose', details: [] });
    expect(failed!.trailers['x-trailer']).toEqual(['yes']);
  });

  it('sends the metadata of each frozen params object, reused across calls', async () => {
    const client = loadedClient();
    const one = Object.freeze({ metadata: Object.freeze({ 'x-test': 'one' }) });
    const two = Object.freeze({ metadata: Object.freeze({ 'x-test': 'two' }) });
    const echoed = await inVu(fakeVu(), async () => {
      await client.connect(addr, { plaintext: true });
      const out: string[] = [];
      for (const params of [one, two, one, two, { metadata: { 'x-test': 'three' } }]) {
        const res = await client.asyncInvoke('k6t.echo.Echo/Echo', { text_value: 'a' }, params);
        out.push(res.headers['x-echo']![0]!);
      }
      return out;
    });
    expect(echoed).toEqual(['one', 'two', 'one', 'two', 'three']);
  });

  it('healthCheck(): awaited, the serving status; read without await, an error saying to await it', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const [served, unread, unknown] = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      const pending = client.healthCheck('k6t.echo.Down');
      let thrown = '';
      try {
        void (pending as unknown as { status: number }).status;
      } catch (err) {
        thrown = String(err);
      }
      const failed = await client.healthCheck('nope').catch((err: unknown) => String(err));
      return [await pending, thrown, failed] as const;
    });
    expect(served).toEqual({ status: grpc.HealthCheckNotServing });
    expect(unread).toContain('use "await client.healthCheck(service)"');
    expect(unknown).toBe('Error: rpc error: code = NotFound desc = unknown service');
  });

  it('reports a deadline as StatusDeadlineExceeded', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const res = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      return client.asyncInvoke('k6t.echo.Echo/Echo', { delay_ms: 2000 }, { timeout: '100ms' });
    });
    expect(res.status).toBe(grpc.StatusDeadlineExceeded);
    expect(res.error).toEqual({ code: 4, message: 'context deadline exceeded', details: [] });
    expect(samplesOf(vu, 'grpc_req_duration')[0]!.tags['status']).toBe('4');
  });

  it('emits grpc_req_duration with k6 system tags and user tags', async () => {
    const client = loadedClient();
    const vu = fakeVu({ tags: { scenario: 'g' } });
    await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      await client.asyncInvoke('k6t.echo.Echo/Echo', { text_value: 'a' }, { tags: { model: 'm1' } });
      await client.asyncInvoke('k6t.echo.Echo/Echo', {}, { tags: { name: 'custom' } });
    });
    const d = samplesOf(vu, 'grpc_req_duration');
    expect(d).toHaveLength(2);
    expect(d[0]!.tags).toMatchObject({
      scenario: 'g',
      model: 'm1',
      url: `${addr}/k6t.echo.Echo/Echo`,
      service: 'k6t.echo.Echo',
      method: 'Echo',
      name: '/k6t.echo.Echo/Echo',
      status: '0',
    });
    expect(d[0]!.value).toBeGreaterThan(0);
    expect(d[1]!.tags['name']).toBe('custom');
    expect(samplesOf(vu, 'data_sent')[0]!.value).toBeGreaterThan(5);
  });

  it('keeps one HTTP/2 connection per VU across calls', async () => {
    const client = loadedClient();
    const before = connections();
    const vus = [fakeVu(), fakeVu()];
    await Promise.all(
      vus.map((vu) =>
        inVu(vu, async () => {
          await client.connect(addr, { plaintext: true });
          for (let i = 0; i < 5; i++)
            await client.asyncInvoke('k6t.echo.Echo/Echo', { text_value: String(i) });
        }),
      ),
    );
    expect(connections() - before).toBe(2);
  });

  it('fails connect to a closed port and makes invoke/connect errors clear', async () => {
    const client = loadedClient();
    await expect(
      inVu(fakeVu(), () => client.connect('127.0.0.1:1', { plaintext: true, timeout: '2s' })),
    ).rejects.toThrow(/connection error|deadline/);
    expect(() => runInVu(fakeVu(), () => client.invoke('k6t.echo.Echo/Echo', {}))).toThrow(/asyncInvoke/);
    expect(() => runInVu(fakeVu(), () => client.connect(addr, { plaintext: 'yes' }))).toThrow(
      /invalid plaintext value/,
    );
    expect(() => client.loadProtoset('x.protoset')).toThrow(/not supported by the Node runtime/);
  });

  it('connects with reflect: true and calls methods without load()', async () => {
    const client = new Client();
    const vu = fakeVu();
    const res = await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true, reflect: true });
      return client.asyncInvoke('k6t.echo.Echo/Echo', { text_value: 'r', big_number: 5, color: 'RED' });
    });
    expect(res.status).toBe(StatusOK);
    expect(res.message).toMatchObject({ textValue: 'r', bigNumber: '5', color: 'RED', inner: null });
  });

  it('streams: data and end events, writes, and stream metrics', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const got: unknown[] = [];
    let ended = 0;
    await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      const stream = new Stream(client, 'k6t.echo.Echo/Chat');
      stream.on('data', (m) => got.push(m));
      stream.on('end', () => ended++);
      stream.write({ text_value: 'one' });
      stream.write({ textValue: 'two', raw_data: 'AAE=' });
      stream.end();
      await waitForStreams(vu);
    });
    expect(got.map((m) => (m as { textValue: string }).textValue)).toEqual(['one', 'two']);
    expect((got[1] as { rawData: string }).rawData).toBe('AAE=');
    expect(ended).toBe(1);
    expect(samplesOf(vu, 'grpc_streams')).toHaveLength(1);
    expect(samplesOf(vu, 'grpc_streams_msgs_sent')).toHaveLength(2);
    expect(samplesOf(vu, 'grpc_streams_msgs_received')).toHaveLength(2);
    expect(samplesOf(vu, 'grpc_req_duration')[0]!.tags['status']).toBe('0');
  });

  it("streams: a timeout ends the stream with k6's deadline error; a throwing handler spares the connection", async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const events: string[] = [];
    const got: string[] = [];
    const stray: unknown[] = [];
    const onStray = (e: unknown) => stray.push(e);
    process.on('uncaughtException', onStray);
    try {
      await inVu(vu, async () => {
        // Not awaited: the first stream is opened while the connection is still being dialled.
        void client.connect(addr, { plaintext: true });
        const slow = new Stream(client, 'k6t.echo.Echo/Chat', { timeout: '100ms' });
        slow.on('error', (e) => events.push(`error ${(e as { code: number }).code} ${(e as Error).message}`));
        slow.on('end', () => events.push('end'));
        slow.write({ text_value: 'late', delay_ms: 2000 });
        await waitForStreams(vu);
        const throwing = new Stream(client, 'k6t.echo.Echo/Chat');
        throwing.on('data', () => {
          throw new Error('handler failed');
        });
        throwing.write({ text_value: 'a' });
        throwing.end();
        await waitForStreams(vu);
        const next = new Stream(client, 'k6t.echo.Echo/Chat');
        next.on('data', (m) => got.push((m as { textValue: string }).textValue));
        next.write({ text_value: 'b' });
        next.write({ text_value: 'c' });
        next.end();
        await waitForStreams(vu);
      });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('uncaughtException', onStray);
    }
    expect(events).toEqual(['error 4 context deadline exceeded', 'end']);
    expect(stray.map((e) => (e as Error).message)).toEqual(['handler failed']);
    expect(got).toEqual(['b', 'c']);
    expect(samplesOf(vu, 'grpc_req_duration').map((s) => s.tags['status'])).toEqual(['4', '0', '0']);
  });

  it('streams: an error status calls error listeners then end', async () => {
    const client = loadedClient();
    const vu = fakeVu();
    const events: string[] = [];
    let error: unknown;
    await inVu(vu, async () => {
      await client.connect(addr, { plaintext: true });
      const stream = new grpc.Stream(client, 'k6t.echo.Echo/Chat');
      stream.on('error', (e) => {
        events.push('error');
        error = e;
      });
      stream.on('end', () => events.push('end'));
      stream.write({ fail_with_code: grpc.StatusInternal });
      await waitForStreams(vu);
    });
    expect(events).toEqual(['error', 'end']);
    expect(error).toMatchObject({ code: 13, message: 'stream failed on purpose' });
  });
});
