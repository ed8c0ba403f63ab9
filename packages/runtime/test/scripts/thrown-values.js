// Values that are not Errors, thrown in an iteration: k6 logs them with the frames they were thrown from.
export const options = { iterations: 3 };
function fail(i) {
  if (i === 0) throw 'a plain string';
  if (i === 1) throw { code: 7 };
  try {
    throw 42;
  } catch (e) {
    console.log('caught', e, { e, list: [1, 'two'] });
  }
}
export default function () {
  fail(__ITER);
}
