/** `k6/data`: SharedArray, built once per name in the init context and shared read-only by every VU. */
import { deepFreeze } from '@k6-triton/lib/kserve/freeze.ts';
import { currentRuntimeVu } from '../vu.ts';

/**
 * k6's SharedArray: `fn` runs once per name per test (the first VU to ask); its array is copied
 * as JSON (as k6 does: no functions, no binary data) and frozen.
 */
export class SharedArray {
  constructor(name: string, fn: () => unknown[]) {
    const vu = currentRuntimeVu();
    if (!vu.inInit) throw new Error('new SharedArray must be called in the init context');
    if (typeof name !== 'string' || name === '') throw new Error('SharedArray needs a non-empty name');
    if (typeof fn !== 'function') throw new Error('SharedArray needs a function that returns an array');
    let arr = vu.run.sharedArrays.get(name);
    if (!arr) {
      const made = fn();
      if (!Array.isArray(made)) throw new Error(`SharedArray "${name}": the function must return an array`);
      arr = deepFreeze(JSON.parse(JSON.stringify(made)) as unknown[]);
      vu.run.sharedArrays.set(name, arr);
    }
    // Returning an object from a constructor makes `new SharedArray()` evaluate to the frozen array.
    // biome-ignore lint/correctness/noConstructorReturn: k6 scripts index the SharedArray like an array
    return arr as unknown as SharedArray;
  }
}

export default { SharedArray };
