/**
 * The `repeat` backend as Triton's decoupled test backend behaves (triton-inference-server/repeat_backend):
 * inputs IN (INT32 [n]), DELAY (UINT32 [n], ms) and WAIT (UINT32 [1]); one response per element of IN, with
 * OUT = IN[i] and IDX = i, sent DELAY[i] ms after the previous one (the first DELAY[0] ms after the request
 * starts). IN and DELAY of different shapes fail with Triton's words. WAIT holds Triton's instance before its
 * next request; here requests run side by side and WAIT is read only. Responses are aimed at one timeline (the
 * sum of the delays so far), so Node's whole-millisecond timers make a response late without the lateness
 * adding up over a stream.
 */
import { ServerError } from '../errors.ts';
import type { BackendFactory, DecoupledBackend, SendResponse, TensorData } from './types.ts';
import type { CancelSignal } from '../infer/cancel.ts';

/** A factory of repeat backends. */
export const repeatFactory: BackendFactory = async () => new Repeat();

class Repeat implements DecoupledBackend {
  readonly #timers = new Set<NodeJS.Timeout>();

  async execute(): Promise<TensorData[]> {
    throw new ServerError('INTERNAL', 'the repeat backend answers streamed requests only');
  }

  async stream(inputs: TensorData[], send: SendResponse, signal?: CancelSignal): Promise<void> {
    const values = int32s(input(inputs, 'IN'));
    const delayTensor = input(inputs, 'DELAY');
    const inShape = input(inputs, 'IN').shape;
    if (inShape.join(',') !== delayTensor.shape.join(',')) {
      throw new ServerError(
        'INVALID_ARG',
        `expected IN and DELAY shape to match, got [${inShape.join(',')}] and [${delayTensor.shape.join(',')}]`,
      );
    }
    const delays = uint32s(delayTensor);
    let due_ms = performance.now();
    for (let i = 0; i < values.length; i++) {
      due_ms += delays[i]!;
      if (!(await this.#sleepUntil(due_ms, signal))) return;
      send([scalar('OUT', 'INT32', values[i]!), scalar('IDX', 'UINT32', i)]);
    }
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Waits until `due_ms` on performance.now(); false when the signal aborts first. */
  #sleepUntil(due_ms: number, signal?: CancelSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        this.#timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(
        () => {
          this.#timers.delete(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        },
        Math.max(0, due_ms - performance.now()),
      );
      this.#timers.add(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function input(inputs: TensorData[], name: string): TensorData {
  const t = inputs.find((i) => i.name === name);
  if (!t) throw new ServerError('INVALID_ARG', `the repeat backend needs input '${name}'`);
  return t;
}

function view(t: TensorData): DataView {
  return new DataView(t.data.buffer, t.data.byteOffset, t.data.length);
}

function int32s(t: TensorData): number[] {
  const v = view(t);
  return Array.from({ length: Math.floor(t.data.length / 4) }, (_, i) => v.getInt32(i * 4, true));
}

function uint32s(t: TensorData): number[] {
  const v = view(t);
  return Array.from({ length: Math.floor(t.data.length / 4) }, (_, i) => v.getUint32(i * 4, true));
}

function scalar(name: string, datatype: 'INT32' | 'UINT32', value: number): TensorData {
  const data = new Uint8Array(4);
  const v = new DataView(data.buffer);
  if (datatype === 'INT32') v.setInt32(0, value, true);
  else v.setUint32(0, value, true);
  return { name, datatype, shape: [1], data };
}
