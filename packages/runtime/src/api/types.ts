/**
 * What k6's REST API (api/v1) shows of a run, and the narrow interface through which the API server
 * (main thread, server.ts) reaches the run (worker threads): the server never touches the engine.
 */
import type { RunSnapshot } from '../workers/merge.ts';

/** k6's lib.ExecutionStatus values, which /v1/status gives as numbers. */
export const EXEC_STATUS = {
  CREATED: 0,
  INIT_VUS: 1,
  INIT_EXECUTORS: 2,
  INIT_DONE: 3,
  PAUSED_BEFORE_RUN: 4,
  STARTED: 5,
  SETUP: 6,
  RUNNING: 7,
  TEARDOWN: 8,
  ENDED: 9,
  INTERRUPTED: 10,
  MARKED_AS_FAILED: 11,
} as const;

/** The attributes of /v1/status, in k6's key order. */
export interface LiveStatus {
  status: number;
  paused: boolean;
  vus: number;
  'vus-max': number;
  stopped: boolean;
  running: boolean;
  tainted: boolean;
}

/** One entry of /v1/metrics: k6's metric attributes, `sample` as k6's sink Format gives it. */
export interface LiveMetric {
  id: string;
  type: 'counter' | 'gauge' | 'rate' | 'trend';
  contains: 'default' | 'time' | 'data';
  /** null until the metric has thresholds evaluated; then whether one fails. */
  tainted: boolean | null;
  sample: Record<string, number>;
}

/** One check of a group, as /v1/groups gives it. */
export interface LiveCheck {
  id: string;
  path: string;
  name: string;
  passes: number;
  fails: number;
}

/** One group of the tree, flattened (root first, then each sub-group's subtree). */
export interface LiveGroup {
  id: string;
  path: string;
  name: string;
  /** null when the group has no checks (k6's empty Go slice). */
  checks: LiveCheck[] | null;
  groupIds: string[];
  parentId: string | null;
}

/** A run's live state, taken at once so status, metrics and groups agree. */
export interface LiveSnapshot {
  status: LiveStatus;
  metrics: LiveMetric[];
  groups: LiveGroup[];
  /** setup()'s result as JSON; null before setup() returned (or without one). */
  setupJson: string | null;
}

/** A worker's share of a run on several workers: raw data the supervisor merges before formatting (workers/live.ts). */
export interface LiveShare {
  run: RunSnapshot;
  /** The options' thresholds (`{}` under --no-thresholds), judged on the merged metrics. */
  thresholds: unknown;
  /** k6's current test run duration on this worker. */
  elapsed_ms: number;
  /** The first worker absorbed every other worker's final metrics: its share is the whole run's. */
  peersMerged: boolean;
}

/**
 * The run as the REST API drives it. The supervisor implements it over worker messages (worker-link.ts);
 * a supervisor of several workers implements it by asking each and combining their answers.
 */
export interface RunApi {
  /** The live status and metrics. */
  snapshot(): Promise<LiveSnapshot>;
  /** Pauses the run; rejects with k6's reason where k6 refuses (every executor but the external one, once started). */
  pause(): Promise<void>;
  /** Resumes a run started with --paused; rejects with k6's reason where k6 refuses. */
  resume(): Promise<void>;
  /** Stops the test as `PATCH /v1/status {"stopped": true}` does (exit code 103). */
  stop(): Promise<void>;
}
