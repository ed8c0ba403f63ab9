/**
 * An HTTP proxy that counts inference requests in flight, so a test can tell when a level of
 * concurrency 2 has started without reading the clock. A response is counted out before it is
 * forwarded, so one VU's next request can never overlap its previous one in the count.
 */
import { startForwardingProxy } from './forwarding-proxy.ts';

/** A running proxy: its URL, the most POSTs seen in flight at once, and how to close it. */
export interface InflightProxy {
  url: string;
  peak(): number;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<ephemeral> to `target` (http://host:port). */
export async function startInflightProxy(target: string): Promise<InflightProxy> {
  let inflight = 0;
  let peak = 0;
  const proxy = await startForwardingProxy(target, {
    onRequest: (req) => {
      if (req.method === 'POST') peak = Math.max(peak, ++inflight);
    },
    onAnswered: (req) => {
      if (req.method === 'POST') inflight--;
    },
  });
  return { url: proxy.url, peak: () => peak, close: proxy.close };
}
