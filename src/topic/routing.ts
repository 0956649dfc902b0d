import type { TopicGroup } from '../kernel/kind';
import type { Wire } from '../protocol';

/**
 * Which HCS topic a Wire travels on (seed 000, "Practical Starting Point:
 * Shared Topics With Stream IDs" and "Topic Per Long-Running Stream"):
 *
 *  - a stream that asked for its own topic → `stream.<stream_id>`
 *  - a stream whose kind groups its streams by a key their Wires name (seed
 *    000's tasks by role) → the group's topic; the key is taken from the
 *    first Wire that names one and remembered by the stream
 *  - any other stream (or one whose key is not known yet) → the project of
 *    its correlation id (`project:<id>` → `project.<id>`), a project stream
 *    → its own project topic
 *  - everything else → `default`
 *
 * Pure: the stream's memory comes in, a possibly updated memory goes out.
 */
export interface TopicMemory {
  /** The remembered group key (stored as `role`, its seed-000 name). */
  role: string | null;
  dedicated: boolean;
}

export function routeTopic(
  wire: Wire,
  memory: TopicMemory,
  group?: TopicGroup,
): { topic: string; memory: TopicMemory } {
  let next = memory;
  if (group && memory.role === null) {
    const key = group.keyOf(wire);
    if (key !== null) next = { ...memory, role: key };
  }
  return { topic: topicName(wire, next, group), memory: next };
}

function topicName(wire: Wire, memory: TopicMemory, group?: TopicGroup): string {
  if (memory.dedicated) return `stream.${wire.stream_id}`;
  if (group && memory.role !== null) return group.topicOf(memory.role);
  const project = projectOf(wire.correlation_id) ?? projectOf(wire.stream_id);
  return project === null ? 'default' : `project.${project}`;
}

function projectOf(ref: string | null): string | null {
  if (ref === null || !ref.startsWith('project:')) return null;
  const id = ref.slice('project:'.length);
  return id.length > 0 ? id : null;
}
