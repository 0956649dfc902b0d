import * as z from 'zod';

/** What the local stand-in network tells a client about itself. */
export const StandinInfo = z.object({
  operatorId: z.string(),
  operatorKey: z.string(),
  nodeAccountId: z.string(),
  grpcUrl: z.string(),
  mirrorUrl: z.string(),
});
export type StandinInfo = z.infer<typeof StandinInfo>;

export async function localOperator(localUrl: string): Promise<StandinInfo> {
  const res = await fetch(`${localUrl}/__standin/info`);
  if (!res.ok) throw new Error(`stand-in at ${localUrl} answered ${res.status}`);
  return StandinInfo.parse(await res.json());
}
