import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/**
 * axe-core's serious and critical violations on the page as it is now (each
 * logged with up to three of its nodes, lesser ones too). axe is injected from
 * node_modules, so it runs offline, in the page.
 */
export async function seriousViolations(page: Page, label: string): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))",
  )) as { id: string; impact: string; nodes: string[] }[];
  for (const v of violations)
    console.log(`axe ${label}: ${v.impact} ${v.id} at ${v.nodes.join(', ')}`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} (${v.nodes.join(', ')})`);
}
