/** Path → route for the KServe v2 HTTP endpoints Triton serves. Pure: no I/O. */

/** A matched endpoint with its path parameters. */
export type Route =
  | { kind: 'server-live' | 'server-ready' | 'server-metadata' | 'all-stats' | 'repo-index' }
  | {
      kind: 'model-ready' | 'model-metadata' | 'model-config' | 'model-infer' | 'model-stats';
      model: string;
      version: string;
    }
  | { kind: 'model-load' | 'model-unload'; model: string }
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
  'model-stats': 'GET',
  'model-load': 'POST',
  'model-unload': 'POST',
  unknown: '',
};

/** Matches a request path (query string already removed). */
export function matchRoute(path: string): Route {
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] !== 'v2') return { kind: 'unknown' };
  if (parts.length === 1) return { kind: 'server-metadata' };
  const [, a, b, c, d, e, f] = parts.map(safeDecode);
  if (a === 'health' && parts.length === 3) {
    if (b === 'live') return { kind: 'server-live' };
    if (b === 'ready') return { kind: 'server-ready' };
  }
  if (a === 'repository') {
    if (b === 'index' && parts.length === 3) return { kind: 'repo-index' };
    if (b === 'models' && parts.length === 5 && c) {
      if (d === 'load') return { kind: 'model-load', model: c };
      if (d === 'unload') return { kind: 'model-unload', model: c };
    }
  }
  if (a === 'models') {
    if (parts.length === 3 && b === 'stats') return { kind: 'all-stats' };
    if (!b) return { kind: 'unknown' };
    let version = '';
    let rest: (string | undefined)[] = [c, d, e, f];
    if (c === 'versions') {
      if (!d) return { kind: 'unknown' };
      version = d;
      rest = [e, f];
    }
    const tail = rest.filter((x) => x !== undefined);
    if (tail.length === 0) return { kind: 'model-metadata', model: b, version };
    if (tail.length === 1) {
      const t = tail[0];
      if (t === 'ready') return { kind: 'model-ready', model: b, version };
      if (t === 'config') return { kind: 'model-config', model: b, version };
      if (t === 'infer') return { kind: 'model-infer', model: b, version };
      if (t === 'stats') return { kind: 'model-stats', model: b, version };
    }
  }
  return { kind: 'unknown' };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
