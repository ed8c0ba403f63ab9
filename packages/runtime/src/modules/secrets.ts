/**
 * `k6/secrets`: `await secrets.get(key)` reads the default secret source, `secrets.source(name).get(key)`
 * a named one (sources come from `--secret-source`, secret-sources.ts). Both are promises, as in k6.
 */
import type { SecretSources } from './secret-sources.ts';
import { currentRuntimeVu } from '../vu.ts';

/** A source's reader: get(key) resolves to the secret or rejects with k6's error text. */
function reader(name: string, sources: () => SecretSources) {
  return {
    get(key: string): Promise<string> {
      const secrets = sources();
      try {
        return Promise.resolve(secrets.get(name, String(key)));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}

/** k6/secrets' default export: the default source's get() and source(name). */
const secrets = {
  ...reader('default', () => currentRuntimeVu().run.secrets),
  // The object source() returns is not bound to the VU (bindToVu), so it keeps the test's sources.
  source: (name: string) => {
    const sources = currentRuntimeVu().run.secrets;
    return reader(String(name), () => sources);
  },
};

export default secrets;

// Also as names: a script under a package.json with "type": "module" gets esbuild's Node-mode interop,
// where the default import is the whole namespace.
export const { get, source } = secrets;
