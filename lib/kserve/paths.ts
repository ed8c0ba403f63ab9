/** KServe v2 REST paths, with model names and versions URL-encoded. */

/** /v2/models/M or /v2/models/M/versions/V. */
export function modelPath(model: string, version?: string): string {
  const base = `/v2/models/${encodeURIComponent(model)}`;
  return version ? `${base}/versions/${encodeURIComponent(version)}` : base;
}

/** Every REST endpoint the clients call. */
export const KSERVE_PATHS = {
  serverLive: () => '/v2/health/live',
  serverReady: () => '/v2/health/ready',
  serverMetadata: () => '/v2',
  modelReady: (model: string, version?: string) => `${modelPath(model, version)}/ready`,
  modelMetadata: (model: string, version?: string) => modelPath(model, version),
  modelConfig: (model: string, version?: string) => `${modelPath(model, version)}/config`,
  modelStatistics: (model?: string, version?: string) =>
    model ? `${modelPath(model, version)}/stats` : '/v2/models/stats',
  infer: (model: string, version?: string) => `${modelPath(model, version)}/infer`,
  repositoryIndex: () => '/v2/repository/index',
  repositoryLoad: (model: string) => `/v2/repository/models/${encodeURIComponent(model)}/load`,
  repositoryUnload: (model: string) => `/v2/repository/models/${encodeURIComponent(model)}/unload`,
} as const;

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

/** Case-insensitive header lookup: k6 canonicalises names, Node lowercases them. */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === wanted) {
      const value = headers[key];
      return Array.isArray(value) ? value[0] : value;
    }
  }
  return undefined;
}
