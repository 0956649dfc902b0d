// Types for TypeScript callers (test/node/mcp-conformance.test.ts).
export function ensureSuite(log?: (line: string) => void): void;
export function runConformance(options: {
  url: string;
  token: string;
  scenario?: string;
  stdio?: 'inherit' | 'pipe';
}): Promise<{ code: number; output: string }>;
