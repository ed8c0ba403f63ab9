/** The embedded server's repeat backend (Triton's decoupled test backend): what it sends, in which order, and its error. */
import { describe, expect, it } from 'vitest';
import { repeatFactory } from '../src/backends/repeat.ts';
import type { DecoupledBackend, TensorData } from '../src/backends/types.ts';

function tensor(name: string, datatype: 'INT32' | 'UINT32', values: number[]): TensorData {
  const data = new Uint8Array(values.length * 4);
  const view = new DataView(data.buffer);
  for (const [i, v] of values.entries()) {
    if (datatype === 'INT32') view.setInt32(i * 4, v, true);
    else view.setUint32(i * 4, v, true);
  }
  return { name, datatype, shape: [values.length], data };
}

async function backend(): Promise<DecoupledBackend> {
  return (await repeatFactory({
    modelName: 'repeat_int32',
    version: '1',
    versionDir: '',
    config: {} as never,
    instance: 0,
  })) as DecoupledBackend;
}

const read = (t: TensorData) =>
  t.datatype === 'INT32'
    ? new DataView(t.data.buffer, t.data.byteOffset).getInt32(0, true)
    : new DataView(t.data.buffer, t.data.byteOffset).getUint32(0, true);

describe('the repeat backend', () => {
  it('sends one response per element of IN: OUT = IN[i], IDX = i, each INT32/UINT32 [1]', async () => {
    const repeat = await backend();
    const sent: TensorData[][] = [];
    await repeat.stream(
      [
        tensor('IN', 'INT32', [7, -3, 2147483647]),
        tensor('DELAY', 'UINT32', [0, 1, 0]),
        tensor('WAIT', 'UINT32', [0]),
      ],
      (outputs) => sent.push(outputs),
    );
    expect(sent.map((o) => o.map((t) => [t.name, t.datatype, t.shape, read(t)]))).toEqual([
      [
        ['OUT', 'INT32', [1], 7],
        ['IDX', 'UINT32', [1], 0],
      ],
      [
        ['OUT', 'INT32', [1], -3],
        ['IDX', 'UINT32', [1], 1],
      ],
      [
        ['OUT', 'INT32', [1], 2147483647],
        ['IDX', 'UINT32', [1], 2],
      ],
    ]);
    await repeat.close();
  });

  it('sends nothing for an empty IN, and fails with Triton words when IN and DELAY differ in shape', async () => {
    const repeat = await backend();
    const sent: unknown[] = [];
    await repeat.stream(
      [tensor('IN', 'INT32', []), tensor('DELAY', 'UINT32', []), tensor('WAIT', 'UINT32', [0])],
      (o) => sent.push(o),
    );
    expect(sent).toEqual([]);
    await expect(
      repeat.stream(
        [tensor('IN', 'INT32', [1, 2]), tensor('DELAY', 'UINT32', [0]), tensor('WAIT', 'UINT32', [0])],
        () => {},
      ),
    ).rejects.toThrow('expected IN and DELAY shape to match, got [2] and [1]');
    await repeat.close();
  });

  it('stops sending when the request is cancelled', async () => {
    const repeat = await backend();
    const abort = new AbortController();
    const sent: unknown[] = [];
    const done = repeat.stream(
      [tensor('IN', 'INT32', [1, 2]), tensor('DELAY', 'UINT32', [0, 60_000]), tensor('WAIT', 'UINT32', [0])],
      (o) => {
        sent.push(o);
        abort.abort();
      },
      abort.signal,
    );
    await done;
    expect(sent).toHaveLength(1);
    await repeat.close();
  });
});
