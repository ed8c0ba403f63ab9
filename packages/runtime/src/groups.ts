/**
 * k6's group tree: groups nest by path ("::a::b"), each holds the checks run inside it with
 * their pass/fail counts. Ids are the md5 of the path, as k6 computes them.
 */
import { createHash } from 'node:crypto';

function md5(s: string): string {
  return createHash('md5').update(s).digest('hex');
}

/** k6's error for a group or check name with its path separator. */
export const NAME_WITH_SEPARATOR = "group and check names may not contain '::'";

/** Pass/fail counts of one check inside one group. */
export class CheckStats {
  passes = 0;
  fails = 0;
  readonly id: string;
  constructor(
    readonly name: string,
    readonly path: string,
  ) {
    this.id = md5(path);
  }
}

/** One group: its sub-groups and checks, in first-seen order. */
export class Group {
  readonly id: string;
  readonly groups = new Map<string, Group>();
  readonly checks = new Map<string, CheckStats>();
  constructor(
    readonly name: string,
    readonly path: string,
    readonly parent: Group | null,
  ) {
    this.id = md5(path);
  }

  /** The sub-group `name`, created on first use; k6 forbids '::' in group names. */
  group(name: string): Group {
    let g = this.groups.get(name);
    if (!g) {
      if (name.includes('::')) throw new Error(NAME_WITH_SEPARATOR);
      g = new Group(name, `${this.path}::${name}`, this);
      this.groups.set(name, g);
    }
    return g;
  }

  /** The check `name` of this group, created on first use. */
  check(name: string): CheckStats {
    let c = this.checks.get(name);
    if (!c) {
      c = new CheckStats(name, `${this.path}::${name}`);
      this.checks.set(name, c);
    }
    return c;
  }
}

/** The group at `path` ("::a::b", as a sample's group tag holds it) under `root`, created on first use. */
export function groupAtPath(root: Group, path: string): Group {
  let g = root;
  if (path === '') return g;
  for (const name of path.slice(2).split('::')) g = g.group(name);
  return g;
}

/** The root group of a test run (name and path ""). */
export function newRootGroup(): Group {
  return new Group('', '', null);
}
