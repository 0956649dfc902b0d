import { type Failure, fail } from '../../../protocol';
import { overlapWitness, type ParsedGlob, parseGlob } from './glob';
import type { ClaimMode } from './payloads';
import { isLive, type SurfaceClaim, type SurfacesState } from './state';

/** Whether a claim's globs collide with a live claim of another identity. */

/** Parses every glob, or the `invalid-glob` failure naming the first bad one. */
export function parseSurfaces(globs: readonly string[]): ParsedGlob[] | Failure {
  const parsed: ParsedGlob[] = [];
  for (const [i, glob] of globs.entries()) {
    const result = parseGlob(glob);
    if (!result.ok) {
      return fail('invalid-glob', `surfaces[${i}] "${glob}": ${result.reason}`, {
        errors: [{ path: `surfaces.${i}`, message: result.reason }],
        extra: { glob },
      });
    }
    parsed.push(result.parsed);
  }
  return parsed;
}

export interface Collision {
  holder: SurfaceClaim;
  mine: string;
  theirs: string;
  path: string;
}

/** The first live claim of another identity that `globs` collide with, or null. */
export function findCollision(
  state: SurfacesState,
  haid: string,
  mode: ClaimMode,
  globs: readonly ParsedGlob[],
  now: number,
): Collision | null {
  for (const claim of Object.values(state.claims)) {
    if (claim.haid === haid || !isLive(claim, now)) continue;
    if (mode === 'shared' && claim.mode === 'shared') continue;
    const theirs = parseSurfaces(claim.surfaces);
    if (!Array.isArray(theirs)) continue;
    for (const mine of globs) {
      for (const other of theirs) {
        const path = overlapWitness(mine, other);
        if (path !== null) return { holder: claim, mine: mine.glob, theirs: other.glob, path };
      }
    }
  }
  return null;
}
