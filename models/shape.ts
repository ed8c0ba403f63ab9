/**
 * `--shape name:d1,d2` overrides for variable (-1) dims, as perf_analyzer's --shape: dims exclude
 * the batch dimension. Runs inside k6 too (scenarios read SHAPE): no Node imports.
 */
import type { TensorSpec } from '../lib/kserve/types.ts';

/** Parses repeated `name:d1,d2,...` strings against a model's inputs; errors name the input and the fix. */
export function parseShapeOverrides(
  args: readonly string[],
  inputs: readonly TensorSpec[],
): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const arg of args) {
    // Input names may contain ':' (rarely), so the last ':' separates the dims.
    const colon = arg.lastIndexOf(':');
    if (colon <= 0 || colon === arg.length - 1) {
      throw new Error(`invalid --shape "${arg}"; expected name:d1,d2,... (e.g. --shape INPUT__0:3,224,224)`);
    }
    const name = arg.slice(0, colon);
    const spec = inputs.find((t) => t.name === name);
    if (!spec) {
      throw new Error(
        `invalid --shape "${arg}": the model has no input "${name}"; inputs: ${inputs.map((t) => t.name).join(', ')}`,
      );
    }
    const parts = arg.slice(colon + 1).split(',');
    const dims = parts.map((p, i) => {
      const d = Number(p.trim());
      if (!/^\s*\d+\s*$/.test(p) || !Number.isSafeInteger(d) || d <= 0) {
        throw new Error(
          `invalid --shape "${arg}": dim ${i} of ${name} must be a positive integer, got "${p}"`,
        );
      }
      return d;
    });
    if (dims.length !== spec.dims.length) {
      throw new Error(
        `invalid --shape "${arg}": ${name} has ${spec.dims.length} dims [${spec.dims.join(',')}] (batch excluded), got ${dims.length}`,
      );
    }
    dims.forEach((d, i) => {
      const fixed = spec.dims[i]!;
      if (fixed !== -1 && fixed !== d) {
        throw new Error(
          `invalid --shape "${arg}": dim ${i} of ${name} is fixed at ${fixed} by the model, got ${d}`,
        );
      }
    });
    out[name] = dims;
  }
  return out;
}

/** The inputs with overrides applied; throws naming any input left with a variable dim. */
export function applyShapes(
  inputs: readonly TensorSpec[],
  overrides: Record<string, number[]>,
): TensorSpec[] {
  return inputs.map((t) => {
    const dims = overrides[t.name] ?? t.dims;
    if (dims.some((d) => d < 0)) {
      throw new Error(
        `input ${t.name} has variable dims [${t.dims.join(',')}]; give its shape with --shape ${t.name}:${t.dims
          .map((d) => (d < 0 ? 'N' : String(d)))
          .join(',')}`,
      );
    }
    return { ...t, dims: [...dims] };
  });
}
