// An exception in an iteration is logged and the test goes on (exit 0), as in k6.
export const options = { iterations: 3 };
export default function () {
  if (__ITER === 1) throw new Error('iteration failed');
}
