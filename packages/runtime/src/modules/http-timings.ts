/** k6's timing phases of an HTTP request (http_req_blocked ... http_req_receiving), from its moments. */

/** k6's timing phases of one request, in ms. */
export interface Timings {
  blocked: number;
  connecting: number;
  tls_handshaking: number;
  sending: number;
  waiting: number;
  receiving: number;
  duration: number;
}

/** The moments of one request (performance.now() ms); -1 marks a moment never reached. */
export interface PhaseMarks {
  t0: number;
  /** Start of the dial when this request opened the connection, else -1. */
  connectStart: number;
  /** End of TCP when a TLS handshake followed, else -1. */
  tcpEnd: number;
  connectEnd: number;
  gotConn: number;
  sentEnd: number;
  firstByte: number;
  end: number;
}

/** k6's phases from a request's moments; a phase that never started (error) ends where the request ended. */
export function k6Timings(m: PhaseMarks): Timings {
  const end = m.end;
  const gotConn = m.gotConn >= 0 ? m.gotConn : end;
  const sentEnd = Math.max(gotConn, m.sentEnd >= 0 ? m.sentEnd : end);
  const firstByte = Math.max(sentEnd, m.firstByte >= 0 ? m.firstByte : end);
  let blocked = gotConn - m.t0;
  let connecting = 0;
  let tls = 0;
  if (m.connectStart >= 0) {
    const connectEnd = m.connectEnd >= m.connectStart ? m.connectEnd : Math.min(end, gotConn);
    const tcpEnd = m.tcpEnd >= m.connectStart ? m.tcpEnd : connectEnd;
    blocked = Math.max(0, m.connectStart - m.t0) + Math.max(0, gotConn - connectEnd);
    connecting = tcpEnd - m.connectStart;
    tls = connectEnd - tcpEnd;
  }
  const sending = sentEnd - gotConn;
  const waiting = firstByte - sentEnd;
  const receiving = end - firstByte;
  return {
    blocked: Math.max(0, blocked),
    connecting: Math.max(0, connecting),
    tls_handshaking: Math.max(0, tls),
    sending,
    waiting,
    receiving,
    duration: sending + waiting + receiving,
  };
}
