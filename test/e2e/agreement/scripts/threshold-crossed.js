// A threshold every run crosses: exit 99, or 0 under K6_NO_THRESHOLDS=true / --no-thresholds.
export const options = { iterations: 1, thresholds: { iterations: ['count<1'] } };
export default function () {}
