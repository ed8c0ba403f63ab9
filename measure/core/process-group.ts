/**
 * How a bench starts a child in a process group of its own, so a terminal's Ctrl-C reaches it once,
 * through the bench (interrupt.ts). Node's only way is `detached`, which calls setsid(): a new session
 * as well, and on Linux a new session is a new scheduler autogroup. A client in an autogroup apart from
 * the server it loads shares the two cores differently from perf_analyzer, which runs in its caller's:
 * real k6 spent about 4% more CPU per request that way (bench/fidelity). perl's setpgrp gives the group
 * without the session; where perl is absent the child is detached as before.
 */
import { existsSync } from 'node:fs';

/** A command line that starts `program` as the leader of its own process group. */
export interface GroupCommand {
  program: string;
  args: string[];
  /** Whether spawn() must detach the child (setsid) to give it the group. */
  detached: boolean;
}

// setpgrp(0, 0) is setpgid(0, 0): the perl process leads a new group in the caller's session, then
// becomes `program` in place (same pid), so the group's id is the child's pid.
const SETPGRP =
  'setpgrp(0, 0) or die "setpgrp: $!\\n"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\\n"';

/** perl (Debian's perl-base is essential), where there is one; undefined elsewhere. */
export function findPerl(candidates: readonly string[] = ['/usr/bin/perl', '/bin/perl']): string | undefined {
  if (process.platform === 'win32') return undefined;
  return candidates.find((path) => existsSync(path));
}

/** `program args` in a process group of its own, in the caller's session when perl is there (null: none). */
export function ownGroup(
  program: string,
  args: readonly string[],
  perl: string | null = findPerl() ?? null,
): GroupCommand {
  if (!perl) return { program, args: [...args], detached: true };
  return { program: perl, args: ['-e', SETPGRP, '--', program, ...args], detached: false };
}

/** `program args` as it is (own false) or in a process group of its own (ownGroup). */
export function childCommand(program: string, args: readonly string[], own: boolean): GroupCommand {
  return own ? ownGroup(program, args) : { program, args: [...args], detached: false };
}
