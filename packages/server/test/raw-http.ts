/**
 * Raw HTTP/1.1 over a TCP socket to 127.0.0.1, for requests fetch() would refuse to send (bad framing, trickled
 * bodies, compressed bombs). Bounded: every exchange gives up after `limit_ms`.
 */
import net from 'node:net';

/** What came back on the socket. */
export interface RawAnswer {
  /** HTTP status of the first response, or 0 when none came. */
  status: number;
  /** Body text of the first response (as received). */
  body: string;
  /** The server closed the socket (or reset it). */
  closed: boolean;
  /** The socket was reset or errored rather than closed cleanly. */
  reset: boolean;
}

/** Sends `chunks` (a function gets the socket to write at its own pace) and reads until close or `limit_ms`. */
export function rawHttp(
  port: number,
  send: Buffer | string | ((socket: net.Socket) => void),
  limit_ms = 5000,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let reset = false;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(Buffer.concat(received).toString('latin1')), closed, reset });
    };
    const timer = setTimeout(() => finish(false), limit_ms);
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => {
      reset = true;
    });
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      if (typeof send === 'function') send(socket);
      else socket.write(send, () => {});
    });
  });
}

function parse(text: string): { status: number; body: string } {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  if (!match) return { status: 0, body: '' };
  const end = text.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  const body = text.slice(end + 4);
  return { status: Number(match[1]), body: length ? body.slice(0, Number(length[1])) : body };
}

/** A POST request's head for a body of `length` bytes. */
export function postHead(path: string, length: number, headers: Record<string, string> = {}): string {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${length}\r\n${extra}\r\n`;
}
