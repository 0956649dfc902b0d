import { REGISTRY } from '../modules';
import type { Reducer } from './reducer';
import { streamState } from './stream-state';
import type { BaseRow } from './types';

let all: readonly Reducer<BaseRow>[] | null = null;

/**
 * Every read model, in the order they are written: the generic one, then the
 * modules'. A function, not a constant: modules import the projection's
 * helpers, so the registry is only complete once every module has loaded.
 */
export function reducers(): readonly Reducer<BaseRow>[] {
  all ??= [streamState as unknown as Reducer<BaseRow>, ...REGISTRY.readModels];
  return all;
}

export function modelNames(): readonly string[] {
  return reducers().map((r) => r.model);
}

export function isModelName(value: string): boolean {
  return modelNames().includes(value);
}
