// console output and thrown values: what k6 prints for each kind of value, and the frames of a thrown string.
export const options = { iterations: 1 };

function thrower() {
  throw 'thrown string';
}

export default function () {
  console.log({ a: 1, b: 'x', c: [1, 2], d: { e: null, u: undefined } });
  console.log('two', 'args', 3, true, null, undefined);
  console.info([1, 'a', { b: 2 }], [], {});
  console.warn(new Error('boom'), function named() {}, new Date(0));
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  console.error(cyclic, new Uint8Array([1, 2]), new ArrayBuffer(2), -0, NaN);
  thrower();
}
