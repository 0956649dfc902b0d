import { agentRuntimeState } from './agent-runtime-state';
import type { ModelName, Reducer } from './reducer';
import { streamState } from './stream-state';
import { taskRunState } from './task-run-state';
import type { BaseRow } from './types';

/** Every read model, in the order they are written. */
export const REDUCERS: readonly Reducer<BaseRow>[] = [
  streamState as unknown as Reducer<BaseRow>,
  taskRunState as unknown as Reducer<BaseRow>,
  agentRuntimeState as unknown as Reducer<BaseRow>,
];

export const MODEL_NAMES: readonly ModelName[] = REDUCERS.map((r) => r.model);

export function isModelName(value: string): value is ModelName {
  return (MODEL_NAMES as readonly string[]).includes(value);
}
