import { buildRegistry } from '../kernel/registry';
import { coordination } from './coordination';
import type { COORDINATION_PROBLEMS } from './coordination/problems';
import { gsd } from './gsd';
import type { GSD_PROBLEMS } from './gsd/problems';
import { heimdall } from './heimdall';
import type { HEIMDALL_PROBLEMS } from './heimdall/problems';
import { runtime } from './runtime';
import type { RUNTIME_PROBLEMS } from './runtime/problems';
import { writer } from './writer';
import type { WRITER_PROBLEMS } from './writer/problems';

/**
 * The protocol modules of this deployment, one line each. Everything the
 * shared machinery knows of a protocol comes from here.
 */
export const MODULES = [coordination, heimdall, writer, runtime, gsd];

export const REGISTRY = buildRegistry(MODULES);

/**
 * The failure codes modules add to the kernel's (see `protocol/failure.ts`),
 * one union member per module: its `problems` table.
 */
export type ModuleProblemCode =
  | keyof typeof COORDINATION_PROBLEMS
  | keyof typeof HEIMDALL_PROBLEMS
  | keyof typeof WRITER_PROBLEMS
  | keyof typeof RUNTIME_PROBLEMS
  | keyof typeof GSD_PROBLEMS;
