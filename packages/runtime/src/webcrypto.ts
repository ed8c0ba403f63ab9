/**
 * The global `crypto` a script sees: Node's WebCrypto, with one of k6's leniencies. k6 imports an EC key given
 * as JWK on the JWK's own curve even when the algorithm names another (k6's examples rely on it: a P-521 JWK
 * imported with namedCurve P-256), where Node refuses with `JWK "crv" does not match the requested algorithm`.
 */
import { webcrypto } from 'node:crypto';

type ImportKey = webcrypto.SubtleCrypto['importKey'];

/** importKey as k6 has it: an EC JWK's own `crv` wins over the algorithm's namedCurve. */
const importKey = ((format: string, keyData: unknown, algorithm: unknown, ...rest: unknown[]) => {
  const jwk = keyData as { kty?: unknown; crv?: unknown };
  const algo = algorithm as { namedCurve?: unknown } | null;
  const onItsCurve =
    format === 'jwk' &&
    jwk?.kty === 'EC' &&
    typeof jwk.crv === 'string' &&
    typeof algo === 'object' &&
    algo !== null &&
    typeof algo.namedCurve === 'string' &&
    algo.namedCurve !== jwk.crv;
  const args = [format, keyData, onItsCurve ? { ...algo, namedCurve: jwk.crv } : algorithm, ...rest];
  return (webcrypto.subtle.importKey as (...a: unknown[]) => ReturnType<ImportKey>)(...args);
}) as ImportKey;

/** The WebCrypto object scripts get as `crypto`. */
export const k6Crypto: webcrypto.Crypto = Object.freeze({
  getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
  randomUUID: webcrypto.randomUUID.bind(webcrypto),
  subtle: new Proxy(webcrypto.subtle, {
    get: (target, key) => {
      if (key === 'importKey') return importKey;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }),
}) as unknown as webcrypto.Crypto;
