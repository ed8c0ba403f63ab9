// An invalid threshold expression: exit code 104 before anything runs.
export const options = { thresholds: { http_req_duration: ['p95 < 200'] } };
export default function () {}
