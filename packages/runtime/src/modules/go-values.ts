/** Go's url.Values encoding, as k6 writes form bodies and k6/html's serialize(). */

/** Go's url.QueryEscape: only A-Z a-z 0-9 - _ . ~ stay, a space becomes +. */
export function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Go's url.Values.Encode: keys sorted, each of a key's values in order. */
export function encodeValues(values: Map<string, string[]>): string {
  return [...values.keys()]
    .sort()
    .flatMap((k) => values.get(k)!.map((v) => `${queryEscape(k)}=${queryEscape(v)}`))
    .join('&');
}
