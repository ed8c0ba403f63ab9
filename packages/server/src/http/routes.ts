/**
 * Path → route for the KServe v2 HTTP endpoints Triton serves, matched as Triton's HTTP frontend matches them
 * (http_server.cc: whole-path regular expressions, numeric versions only). Names are used as sent, not
 * percent-decoded: Triton looks up 'l%61b', not 'lab'. Pure: no I/O.
 */

/** A matched endpoint with its path parameters. */
export type Route =
  | {
      kind:
        | 'server-live'
        | 'server-ready'
        | 'server-metadata'
        | 'all-stats'
        | 'repo-index'
        | 'openai-chat'
        | 'openai-completions'
        | 'openai-embeddings';
    }
  | {
      kind:
        | 'model-ready'
        | 'model-metadata'
        | 'model-config'
        | 'model-infer'
        | 'model-generate'
        | 'model-generate-stream'
        | 'model-stats';
      model: string;
      version: string;
    }
  /** `repository` is the optional /v2/repository/<name>/... segment, which Triton refuses for load and unload. */
  | { kind: 'model-load' | 'model-unload'; model: string; repository: string }
  | { kind: 'unknown' };

/** Methods each route answers. */
export const METHOD_BY_ROUTE: Readonly<Record<Route['kind'], string>> = {
  'server-live': 'GET',
  'server-ready': 'GET',
  'server-metadata': 'GET',
  'all-stats': 'GET',
  'repo-index': 'POST',
  'model-ready': 'GET',
  'model-metadata': 'GET',
  'model-config': 'GET',
  'model-infer': 'POST',
  'model-generate': 'POST',
  'model-generate-stream': 'POST',
  'model-stats': 'GET',
  'openai-chat': 'POST',
  'openai-completions': 'POST',
  'openai-embeddings': 'POST',
  'model-load': 'POST',
  'model-unload': 'POST',
  unknown: '',
};

const MODEL =
  /^\/v2\/models\/([^/]+)(?:\/versions\/([0-9]+))?(?:\/(infer|generate|generate_stream|ready|config|stats))?$/;
const HEALTH = /^\/v2\/health\/(live|ready)$/;
const REPOSITORY = /^\/v2\/repository(?:\/([^/]+))?\/(?:(index)|models\/([^/]+)\/(load|unload))$/;
const MODEL_KINDS = {
  '': 'model-metadata',
  infer: 'model-infer',
  generate: 'model-generate',
  generate_stream: 'model-generate-stream',
  ready: 'model-ready',
  config: 'model-config',
  stats: 'model-stats',
} as const;

/** Matches a request path (query string already removed). */
export function matchRoute(path: string): Route {
  if (path === '/v2/models/stats') return { kind: 'all-stats' };
  // OpenAI-compatible endpoints in front of generative models (packages/server/src/http/openai.ts).
  if (path === '/v1/chat/completions') return { kind: 'openai-chat' };
  if (path === '/v1/completions') return { kind: 'openai-completions' };
  if (path === '/v1/embeddings') return { kind: 'openai-embeddings' };
  const model = MODEL.exec(path);
  if (model) {
    const kind = MODEL_KINDS[(model[3] ?? '') as keyof typeof MODEL_KINDS];
    return { kind, model: model[1]!, version: model[2] ?? '' };
  }
  if (path === '/v2') return { kind: 'server-metadata' };
  const health = HEALTH.exec(path);
  if (health) return { kind: health[1] === 'live' ? 'server-live' : 'server-ready' };
  const repo = REPOSITORY.exec(path);
  if (repo) {
    if (repo[2]) return { kind: 'repo-index' };
    return {
      kind: repo[4] === 'load' ? 'model-load' : 'model-unload',
      model: repo[3]!,
      repository: repo[1] ?? '',
    };
  }
  return { kind: 'unknown' };
}
