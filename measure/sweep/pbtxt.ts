/** The winning sweep config as a config.pbtxt snippet, to paste into the model's repository config. */
import type { SweepConfig } from './grid.ts';

/** Renders the swept fields in Triton's text format; `kind` is the instance group's (KIND_CPU, KIND_GPU). */
export function pbtxtSnippet(c: SweepConfig, kind = 'KIND_CPU'): string {
  const lines: string[] = [];
  if (c.max_batch_size !== undefined) lines.push(`max_batch_size: ${c.max_batch_size}`);
  lines.push('instance_group [', '  {', `    count: ${c.instances}`, `    kind: ${kind}`, '  }', ']');
  lines.push('dynamic_batching {');
  if (c.preferred_batch !== undefined) lines.push(`  preferred_batch_size: [ ${c.preferred_batch} ]`);
  lines.push(`  max_queue_delay_microseconds: ${c.max_queue_delay_us}`, '}');
  return lines.join('\n');
}
