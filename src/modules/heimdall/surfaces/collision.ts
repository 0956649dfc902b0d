import { type Failure, fail } from '../../../protocol';
import { type ParsedGlob, parseGlob } from './glob';
import { overlapWitness } from './overlap';
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

/**
 * Brace alternatives a claim's globs may expand to in all. Deciding a claim
 * compares each of its alternatives with each of every live claim's, so this
 * bounds one comparison of two claims to 128 × 128 pairs.
 */
export const MAX_CLAIM_ALTERNATIVES = 128;

/** A new claim's globs: each parsed, and their alternatives within `MAX_CLAIM_ALTERNATIVES`. */
export function claimGlobs(globs: readonly string[]): ParsedGlob[] | Failure {
  const parsed = parseSurfaces(globs);
  if (!Array.isArray(parsed)) return parsed;
  const total = parsed.reduce((sum, g) => sum + g.alternatives.length, 0);
  if (total > MAX_CLAIM_ALTERNATIVES) {
    const reason = `the globs expand to ${total} alternatives in all; a claim has at most ${MAX_CLAIM_ALTERNATIVES} (claim fewer globs, or fewer brace alternatives)`;
    return fail('invalid-glob', `surfaces: ${reason}`, {
      errors: [{ path: 'surfaces', message: reason }],
      extra: { alternatives: total, max_alternatives: MAX_CLAIM_ALTERNATIVES },
    });
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
