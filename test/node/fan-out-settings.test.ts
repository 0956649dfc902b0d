import { describe, expect, it } from 'vitest';
import { fanOutSettings, flushGapMs } from '../../src/stream/fan-out-settings';

describe('fan-out settings from the wrangler vars', () => {
  it('defaults to a 1024-Wire window and flushes at most 8 ms apart', () => {
    expect(fanOutSettings({})).toEqual({ window: 1024, maxGapMs: 8 });
  });

  it('takes WS_FLUSH_GAP_MS = "0" as "never hold a flush back", unlike the window', () => {
    const s = fanOutSettings({ WS_FLUSH_GAP_MS: '0', WS_MAX_BUFFERED_FRAMES: '0' });
    expect(s).toEqual({ window: 1024, maxGapMs: 0 });
    expect(flushGapMs(1000, s.maxGapMs)).toBe(0);
  });

  it('ignores a blank or malformed value instead of turning spacing off', () => {
    for (const bad of ['', ' ', '2.5', '-1', 'fast']) {
      expect(fanOutSettings({ WS_FLUSH_GAP_MS: bad }).maxGapMs).toBe(8);
    }
  });

  it('spaces flushes 1 ms per 25 subscribers, none below 25, up to the cap', () => {
    expect([1, 24, 25, 100, 199, 1000].map((n) => flushGapMs(n, 8))).toEqual([0, 0, 1, 4, 7, 8]);
    expect(flushGapMs(1000, 3)).toBe(3);
  });
});
