/**
 * The messages of a run on several workers, all plain data: workers report to the supervisor, which
 * routes them (coordinator.ts) to the first worker, the aggregator that runs setup, teardown and the
 * summary. Part of supervisor.ts's WorkerMessage/SupervisorMessage unions.
 */
import type { OutputChunk } from '../metrics/pipeline.ts';
import type { RunSnapshot } from './merge.ts';

/** setup()'s outcome, which every worker's scenarios start from. */
export interface SetupOutcome {
  ok: boolean;
  /** setup()'s data as JSON (undefined: setup returned nothing, or there is none). */
  json: string | undefined;
}

/** A worker → the supervisor. */
export type PeerMessage =
  /** The first worker loaded the script: the test's peak VUs bound the worker count. */
  | { type: 'plan'; maxVus: number }
  /** Another worker initialized its VUs. */
  | { type: 'ready' }
  /** The first worker ran setup(). */
  | ({ type: 'setup-done' } & SetupOutcome)
  /** The run stops (test.abort(), abortOnFail, a failed scenario): every worker stops. */
  | { type: 'abort'; code: number; reason: string }
  /** Another worker's lines for output `index` (--out json/csv), for the first worker's file. */
  | { type: 'output'; index: number; chunk: OutputChunk }
  /** A worker's metrics so far; `final` once its scenarios are over (its last samples included). */
  | { type: 'snapshot'; snapshot: RunSnapshot; final: boolean };

/** The supervisor → a worker. */
export type PeerCommand =
  /** To the first worker: how many workers the run has (1: it runs alone, unsegmented). */
  | { type: 'workers'; count: number }
  /** To the first worker: every other worker initialized its VUs. */
  | { type: 'peers-ready' }
  | ({ type: 'setup-done' } & SetupOutcome)
  | { type: 'abort'; code: number; reason: string }
  | { type: 'peer-output'; index: number; chunk: OutputChunk }
  | { type: 'peer-snapshot'; from: number; snapshot: RunSnapshot; final: boolean };

/** A worker's place in the run. */
export interface WorkerRole {
  /** 0 for the first worker (setup, teardown, summary, outputs' files). */
  index: number;
  /** Workers asked for: the first worker's count is final once the supervisor answers its plan. */
  count: number;
  /** Whether `--workers` or K6_TRITON_WORKERS chose the count (not the default). */
  asked: boolean;
}
