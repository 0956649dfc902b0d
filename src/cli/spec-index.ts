import type { CommandSpec } from './help';
import { CORE_SPECS } from './spec-core';
import { GSD_SPECS, WORKSPACE_SPECS } from './spec-family';
import { KEYS_SPECS } from './spec-keys';
import { RUNTIME_SPECS } from './spec-runtime';

/** Every command's spec, in the order `wirestream help` lists them (a new family adds its list here). */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  ...CORE_SPECS,
  ...WORKSPACE_SPECS,
  ...GSD_SPECS,
  ...RUNTIME_SPECS,
  ...KEYS_SPECS,
];

export function specFor(name: string | undefined): CommandSpec | undefined {
  return COMMAND_SPECS.find((s) => s.name === name);
}
