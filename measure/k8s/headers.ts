/**
 * The runners' request headers (a bearer token, custom headers) for `k6-triton k8s`: they travel in a
 * Kubernetes Secret, never in the TestRun. Either the user's --headers and --headers-file become a Secret we
 * write, or --headers-secret names one the user made. The runners read its HEADERS key through a
 * secretKeyRef, so the scenario reads them as it reads HEADERS anywhere else.
 */
import { readFileSync } from 'node:fs';
import { parseHeaderLines, parseHeaders } from '../../scenarios/kit/settings.ts';

/** The Secret's key the runners' HEADERS variable is read from. */
export const HEADERS_KEY = 'HEADERS';

/** Where the runners' headers come from: a Secret by name, and its HEADERS value when we write it. */
export interface HeadersSecret {
  name: string;
  /** "Name:value,Name:value" as the scenario reads HEADERS; absent when the Secret is the user's own. */
  value?: string;
}

/** A Secret's name: a DNS subdomain, as Kubernetes requires. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The header file's lines, read and checked; one line naming the file (never a value) when it is bad. */
function fileHeaders(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `--headers-file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give a readable file of "Name: value" lines`,
    );
  }
  return parseHeaderLines(text, path);
}

/**
 * The runners' headers Secret from the settings' HEADERS and HEADERS_FILE (HEADERS wins on a name, as in the
 * scenario), or the user's own Secret; undefined when the run sends no headers. Errors name a header, never
 * its value.
 */
export function headersSecret(
  settings: Readonly<Record<string, string>>,
  defaultName: string,
  userSecret?: string,
): HeadersSecret | undefined {
  const given = [settings.HEADERS ? '--headers' : '', settings.HEADERS_FILE ? '--headers-file' : ''].filter(
    Boolean,
  );
  if (userSecret !== undefined) {
    if (!SECRET_NAME.test(userSecret))
      throw new Error(
        `--headers-secret "${userSecret}" is not a Kubernetes object name; use lower-case letters, digits, '-' and '.'`,
      );
    if (given.length > 0)
      throw new Error(
        `--headers-secret ${userSecret} holds the runners' headers; drop ${given.join(' and ')} or --headers-secret`,
      );
    return { name: userSecret };
  }
  if (given.length === 0) return undefined;
  const headers = {
    ...(settings.HEADERS_FILE ? fileHeaders(settings.HEADERS_FILE) : {}),
    ...parseHeaders(settings.HEADERS),
  };
  if (Object.keys(headers).length === 0) return undefined;
  for (const [name, value] of Object.entries(headers))
    if (value.includes(','))
      throw new Error(
        `header ${name}: its value has a comma, which the runners' HEADERS variable cannot carry; send it without one`,
      );
  const value = Object.entries(headers)
    .map(([name, v]) => `${name}:${v}`)
    .join(',');
  return { name: `${defaultName}-headers`, value };
}
