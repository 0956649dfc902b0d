import type { Wire } from '../protocol';
import { parseStreamId } from '../protocol';

/**
 * Which HCS topic a Wire travels on (seed 000, "Practical Starting Point:
 * Shared Topics With Stream IDs" and "Topic Per Long-Running Stream"):
 *
 *  - a stream that asked for its own topic → `stream.<stream_id>`
 *  - a task stream → its role's topic `roles.<role>`; the role is taken from
 *    the first Wire whose payload names one (task.available / task.claim …)
 *    and remembered by the stream
 *  - any other stream (or a task stream whose role is not known yet) → the
 *    project of its correlation id (`project:<id>` → `project.<id>`), a
 *    project stream → its own project topic
 *  - everything else → `default`
 *
 * Pure: the stream's memory comes in, a possibly updated memory goes out.
 */
export interface TopicMemory {
  role: string | null;
  dedicated: boolean;
}

export function routeTopic(
  wire: Wire,
  memory: TopicMemory,
): { topic: string; memory: TopicMemory } {
  const stream = parseStreamId(wire.stream_id);
  let next = memory;
  if (stream?.kind === 'task' && memory.role === null) {
    const role = (wire.payload as { role?: unknown }).role;
    if (typeof role === 'string' && role.length > 0) next = { ...memory, role };
  }
  return { topic: topicName(wire, stream?.kind ?? null, next), memory: next };
}

function topicName(wire: Wire, kind: string | null, memory: TopicMemory): string {
  if (memory.dedicated) return `stream.${wire.stream_id}`;
  if (kind === 'task' && memory.role !== null) return `roles.${memory.role}`;
  const project = projectOf(wire.correlation_id) ?? projectOf(wire.stream_id);
  return project === null ? 'default' : `project.${project}`;
}

function projectOf(ref: string | null): string | null {
  if (ref === null || !ref.startsWith('project:')) return null;
  const id = ref.slice('project:'.length);
  return id.length > 0 ? id : null;
}
