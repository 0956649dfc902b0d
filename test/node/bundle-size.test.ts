import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFFLINE, ROOT, WRANGLER } from '../../tools/lib/wrangler-local.mjs';

/** The budget of issue 27: the whole Worker within 500 KiB of gzip. */
const BUDGET_KIB = 500;

describe('the Worker bundle', () => {
  it(`stays within ${BUDGET_KIB} KiB gzip, as wrangler deploy measures it`, () => {
    const out = mkdtempSync(path.join(tmpdir(), 'wirestream-bundle-'));
    try {
      const run = spawnSync(process.execPath, [WRANGLER, 'deploy', '--dry-run', '--outdir', out], {
        cwd: ROOT,
        env: OFFLINE,
        encoding: 'utf8',
      });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.status, output).toBe(0);
      // "Total Upload: 2089.51 KiB / gzip: 488.86 KiB"
      const gzip = /Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(output)?.[1];
      expect(gzip, output).toBeDefined();
      console.log(`Worker bundle: ${gzip} KiB gzip (budget ${BUDGET_KIB} KiB)`);
      expect(Number(gzip)).toBeLessThanOrEqual(BUDGET_KIB);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
