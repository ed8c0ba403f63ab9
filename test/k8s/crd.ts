/**
 * k6-operator's TestRun CRD (k8s/k6.io_testruns.yaml) as an ajv validator of its openAPIV3Schema, made strict:
 * a field the CRD does not declare is an error, as `kubectl apply --validate=strict` makes it (the API server
 * would silently drop it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

const CRD = parse(readFileSync(join(import.meta.dirname, '../../k8s/k6.io_testruns.yaml'), 'utf8'));

type Schema = Record<string, unknown>;

/** Closes every object schema that lists its properties (Kubernetes prunes the rest; we want an error). */
function strict(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, strict(v)]),
      );
    } else if (value && typeof value === 'object' && !Array.isArray(value))
      out[key] = strict(value as Schema);
    else if (Array.isArray(value)) out[key] = value.map((v) => (v && typeof v === 'object' ? strict(v) : v));
    else out[key] = value;
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

/** A validator of TestRun objects against the CRD's v1alpha1 schema, closed. */
export function testRunValidator(): ValidateFunction {
  const version = CRD.spec.versions.find((v: { name: string }) => v.name === 'v1alpha1');
  // strict: false lets the x-kubernetes-* extension keywords through; Kubernetes' own formats are named.
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    formats: { int32: true, int64: true, 'date-time': true },
  });
  return ajv.compile(strict(version.schema.openAPIV3Schema));
}
