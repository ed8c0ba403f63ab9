/** Reading a server's Prometheus /metrics in the bench e2e tests. */

/** The sum of a metric's series whose labels contain every `match`, from the server's /metrics text. */
export async function scrape(port: number, name: string, ...match: string[]): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (match.every((m) => line.includes(m))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** The simulated gpt2's prefix cache queries and hits (tokens) during `run`. */
export async function prefixCacheDuring(
  port: number,
  run: () => Promise<unknown>,
): Promise<{ queries: number; hits: number }> {
  const read = async () => ({
    queries: await scrape(port, 'vllm:prefix_cache_queries_total', 'model="gpt2"'),
    hits: await scrape(port, 'vllm:prefix_cache_hits_total', 'model="gpt2"'),
  });
  const before = await read();
  await run();
  const after = await read();
  return { queries: after.queries - before.queries, hits: after.hits - before.hits };
}
