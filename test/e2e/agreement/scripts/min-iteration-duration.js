// minIterationDuration: a 2 s, 1-VU run of empty iterations held to 300 ms each (k6: 7 iterations).
export const options = { vus: 1, duration: '2s', minIterationDuration: '300ms' };
export default function () {}
