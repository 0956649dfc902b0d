import type { Env } from '../env';

/** Hono's environment for every route. */
export interface AppEnv {
  Bindings: Env;
}
