import type { Env } from '../env';
import type { Principal } from './auth/claims';

/** Hono's environment for every route. */
export interface AppEnv {
  Bindings: Env;
  /** `principal`: the authenticated caller (see api/auth/authenticate.ts). */
  Variables: { principal: Principal };
}
