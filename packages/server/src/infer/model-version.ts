/** A request's model version as Triton's frontends read it (GetModelVersionFromString, with std::stol). */
import { ServerError } from '../errors.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The version a request names, as the repository keys it: '' for the latest ready version, else the number
 * std::stol reads from the text's start ('007' and '7abc' are version 7).
 */
export function requestedVersion(text: string): string {
  if (text === '') return '';
  const digits = /^[\t\n\v\f\r ]*([+-]?\d+)/.exec(text);
  const value = digits ? BigInt(digits[1]!) : undefined;
  if (value === undefined || value < INT64_MIN || value > INT64_MAX) {
    throw new ServerError(
      'INVALID_ARG',
      `failed to get model version from specified version string '${text}' (details: stol), version should be an integral value > 0`,
    );
  }
  if (value < 0n) {
    throw new ServerError(
      'INVALID_ARG',
      `invalid model version specified '${text}' , version should be an integral value > 0`,
    );
  }
  return value.toString();
}
