/** GET /v1/groups and /v1/groups/{id}: k6's group documents with their relationships. */
import type { ServerResponse } from 'node:http';
import { apiError, SNIFFED_TYPE, writeJson } from './jsonapi.ts';
import type { LiveGroup, RunApi } from './types.ts';

function groupData(g: LiveGroup): unknown {
  return {
    type: 'groups',
    id: g.id,
    attributes: { path: g.path, name: g.name, checks: g.checks },
    relationships: {
      groups: { data: g.groupIds.map((id) => ({ type: 'groups', id })) },
      parent: { data: g.parentId === null ? null : { type: 'groups', id: g.parentId } },
    },
  };
}

/** GET /v1/groups: every group, root first. */
export async function getGroups(api: RunApi, res: ServerResponse): Promise<void> {
  writeJson(res, { data: (await api.snapshot()).groups.map(groupData) }, SNIFFED_TYPE);
}

/** GET /v1/groups/{id}: one group, or k6's 404. */
export async function getGroup(api: RunApi, id: string, res: ServerResponse): Promise<void> {
  const g = (await api.snapshot()).groups.find((x) => x.id === id);
  if (!g) return apiError(res, 'Not Found', 'No group with that ID was found', 404);
  writeJson(res, { data: groupData(g) }, SNIFFED_TYPE);
}
