/**
 * A hostile front for the embedded server, for tests of what a bench makes of garbage answers: every request is
 * forwarded as it is (health, metadata, config, statistics) except inference, which the proxy answers itself by
 * `mode`. HTTP only, on 127.0.0.1:<ephemeral>; close() ends every socket, a hung one too.
 */
import type http from 'node:http';
import { type ForwardingProxy, type ProxyAnswer, startForwardingProxy } from './forwarding-proxy.ts';

/**
 * What inference gets: `html` a gateway's 200 text/html error page, `broken-json` a JSON body cut short,
 * `wrong-outputs` well-formed KServe JSON whose output has a name and shape no model declares, `hang` nothing
 * (the request is read and never answered).
 */
export type HostileMode = 'html' | 'broken-json' | 'wrong-outputs' | 'hang';

/** The modes, for tests that run each. */
export const HOSTILE_MODES: readonly HostileMode[] = ['html', 'broken-json', 'wrong-outputs', 'hang'];

/** A running hostile proxy: its URL, the inference requests it has answered (or swallowed), and close(). */
export interface HostileProxy extends ForwardingProxy {
  inferences(): number;
}

const INFER_PATH = /^\/v2\/models\/([^/]+)(?:\/versions\/[^/]+)?\/infer(?:\?.*)?$/;

/** The mode's answer to an inference request for `model`. */
function hostileAnswer(mode: Exclude<HostileMode, 'hang'>, model: string): ProxyAnswer {
  if (mode === 'html') {
    const body = '<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>';
    return { status: 200, headers: { 'content-type': 'text/html' }, body };
  }
  if (mode === 'broken-json') {
    return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"model_name":"' };
  }
  const body = JSON.stringify({
    model_name: model,
    model_version: '1',
    outputs: [{ name: 'not_an_output', datatype: 'FP32', shape: [1, 3], data: [0, 0, 0] }],
  });
  return { status: 200, headers: { 'content-type': 'application/json' }, body };
}

/** Starts a proxy to `target` (the embedded server's http://host:port) that answers inference by `mode`. */
export async function startHostileProxy(target: string, mode: HostileMode): Promise<HostileProxy> {
  let inferences = 0;
  const answer = (req: http.IncomingMessage): ProxyAnswer | 'hang' | undefined => {
    const infer = req.method === 'POST' ? INFER_PATH.exec(req.url ?? '') : null;
    if (!infer) return undefined;
    inferences++;
    return mode === 'hang' ? 'hang' : hostileAnswer(mode, decodeURIComponent(infer[1]!));
  };
  const proxy = await startForwardingProxy(target, { answer });
  return { ...proxy, inferences: () => inferences };
}
