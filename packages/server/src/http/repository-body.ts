/**
 * The JSON bodies of the repository endpoints (index, load, unload), read as Triton's HTTP frontend reads them:
 * an empty body is fine, a body that is not JSON is a 500 in rapidjson's words, members of the wrong type are 500s in the words of
 * Triton's JSON reader, and a body that is JSON but not an object carries no settings. Pure.
 */
import type { LoadParameters } from '../core.ts';
import { Errors } from '../errors.ts';
import { parseRequestJson } from './request-json.ts';

/** POST v2/repository/index: whether only ready models are listed. */
export function readIndexBody(body: Buffer | undefined): { ready: boolean } {
  const json = parseBody(body);
  if (!isObject(json) || !('ready' in json)) return { ready: false };
  if (typeof json.ready !== 'boolean') throw Errors.jsonType('boolean');
  return { ready: json.ready };
}

/** POST v2/repository/models/M/load: every parameter must be a string; only "config" and "file:..." are known. */
export function readLoadBody(body: Buffer | undefined): LoadParameters {
  const json = parseBody(body);
  const out: LoadParameters = { files: [] };
  if (!isObject(json) || !('parameters' in json)) return out;
  const parameters = json.parameters;
  if (!isObject(parameters)) throw Errors.jsonType('object');
  for (const [name, value] of Object.entries(parameters)) {
    if (typeof value !== 'string') throw Errors.jsonType('string');
    if (name === 'config') out.config = value;
    else if (name.startsWith('file:')) out.files.push(name);
    else throw Errors.unknownLoadParameterHttp();
  }
  return out;
}

/** POST v2/repository/models/M/unload: the body must be JSON; Triton ignores a bad "unload_dependents". */
export function readUnloadBody(body: Buffer | undefined): void {
  parseBody(body);
}

/** The body as rapidjson reads it (request-json.ts), or nothing when it is empty. */
function parseBody(body: Buffer | undefined): unknown {
  return !body || body.length === 0 ? undefined : parseRequestJson(body);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
