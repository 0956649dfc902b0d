/** Readers of a workspace Wire's payload fields: a missing or mistyped field reads as empty. */

export type P = Record<string, unknown>;
export const s = (p: P, k: string): string => (typeof p[k] === 'string' ? (p[k] as string) : '');
export const opt = (p: P, k: string): string | null =>
  typeof p[k] === 'string' ? (p[k] as string) : null;
export const num = (p: P, k: string): number => (typeof p[k] === 'number' ? (p[k] as number) : 0);
export const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
