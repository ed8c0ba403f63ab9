/**
 * The simulated backend's documented output formula, re-implemented here from its description
 * (packages/server/src/backends/simulated-outputs.ts) so tests check answers without calling the server's code.
 */
export function expectedFloat(itemParts: Buffer[], index: number): number {
  let h = 0x811c9dc5;
  for (const part of itemParts) {
    const padded = Buffer.concat([part, Buffer.alloc((4 - (part.length % 4)) % 4)]);
    for (let i = 0; i < padded.length; i += 4) h = Math.imul(h ^ padded.readUInt32LE(i), 0x01000193);
  }
  let x = ((h >>> 0) + Math.imul(index + 1, 0x9e3779b9)) | 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return Math.fround((x >>> 0) / 4294967296);
}
