/** Fakes for the sequence loop's tests: an identity-like transport and counters that add up. */
import type { ParameterValue } from '../../lib/kserve/types.ts';
import { WindowClock } from '../../lib/load/windows.ts';
import type { SequenceCounters } from '../../lib/sequence/names.ts';
import { readSequenceSettings } from '../../lib/sequence/settings.ts';
import type { LoopExecution } from '../../scenarios/kit/measured-loop.ts';
import type { InferOutcome, Transport } from '../../scenarios/kit/transport.ts';

/** A request the fake transport received: its echo tensor and its parameters. */
export interface Sent {
  echo: number[];
  parameters: Record<string, ParameterValue>;
}

/** An identity-like transport; `mangle` may change the echo of request n, `failAt` fails request n. */
export function fakeTransport(
  sent: Sent[],
  opts: {
    mangle?: (n: number, echo: number[]) => number[];
    failAt?: number;
    /** Request n gets a 200 whose body is no infer response (a gateway's HTML page). */
    garbleAt?: number;
    cutAt?: number;
    /** Request n's answer waits for `gate` (async only): its iteration is left behind, as a runtime may. */
    holdAt?: number;
    gate?: Promise<void>;
  },
) {
  const answer = (prepared: unknown): InferOutcome => {
    const request = prepared as Sent;
    sent.push(request);
    const n = sent.length;
    // k6 stopping an iteration at its graceful stop: the rest of the iteration never runs.
    if (n === opts.cutAt) throw new Error('iteration interrupted');
    if (n === opts.failAt) return { ok: false, error: () => 'status 400', outputs: () => ({}) as never };
    if (n === opts.garbleAt) {
      return {
        ok: true,
        error: () => undefined,
        outputs: () => {
          throw new Error('invalid response: body is text/html, not JSON');
        },
      };
    }
    const echo = opts.mangle ? opts.mangle(n, request.echo) : request.echo;
    return {
      ok: true,
      error: () => undefined,
      outputs: () => ({
        modelName: 'm',
        modelVersion: '1',
        outputs: [{ name: 'OUTPUT0', datatype: 'INT32', shape: [1, 2], data: new Int32Array(echo) }],
      }),
    };
  };
  const unused = () => Promise.reject(new Error('not used by the loop'));
  const transport: Transport = {
    target: 'http://fake',
    prepare: (inputs, parameters) => ({
      echo: [...new Int32Array(inputs[0]!.data.slice().buffer)],
      parameters: parameters ?? {},
    }),
    infer: async (prepared) => {
      const outcome = answer(prepared);
      if (sent.length === opts.holdAt) await opts.gate;
      return outcome;
    },
    inferSync: (prepared) => answer(prepared),
    bind: () => {
      throw new Error('not used by the loop');
    },
    noResponse: () => false,
    serverLive: unused,
    modelReady: unused,
    modelMetadata: unused,
    modelConfig: unused,
    statistics: unused,
  };
  return transport;
}

/** The four sequence counters, each adding up into `totals`. */
export function counters(): SequenceCounters & { totals: Record<string, number> } {
  const totals: Record<string, number> = { started: 0, completed: 0, outOfOrder: 0, orphaned: 0 };
  const counter = (name: string) => ({
    add: (v: number | boolean) => {
      totals[name] = totals[name]! + Number(v);
    },
  });
  return {
    totals,
    started: counter('started'),
    completed: counter('completed'),
    outOfOrder: counter('outOfOrder'),
    orphaned: counter('orphaned'),
  };
}

/**
 * The loop's model side: the echo tensors, sequences of `length` steps (no variation), ids 1:100, and the request
 * metrics (infer_errors, the response counters) adding up into `requests`.
 */
export function echoModel(exec: LoopExecution, length: number) {
  const requests = { failed: 0, succeeded: 0, checked: 0, invalid: 0 };
  return {
    requests,
    inferErrors: {
      add: (failed: number | boolean) => void (failed ? requests.failed++ : requests.succeeded++),
    },
    responses: {
      checked: {
        add: (n: number | boolean) => {
          requests.checked += Number(n);
        },
      },
      invalid: {
        add: (n: number | boolean) => {
          requests.invalid += Number(n);
        },
      },
    },
    exec,
    clock: new WindowClock(10, () => exec.scenario.startTime),
    modelName: 'm',
    input: 'INPUT0',
    output: 'OUTPUT0',
    settings: readSequenceSettings({
      SEQUENCE_LENGTH: String(length),
      SEQUENCE_LENGTH_VARIATION: '0',
      SEQUENCE_ID_RANGE: '1:100',
    }),
  };
}
