import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';

// The Worker forwards the dashboard to the static assets of its STATIC service
// (src/api/routes/static-files.ts); the browser test drives it, these check
// what a browser's cache relies on.
describe('dashboard files', () => {
  it('serves the page at / and /index.html as HTML, with the security headers', async () => {
    for (const path of ['/', '/index.html']) {
      const res = await SELF.fetch(`https://ws.test${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toContain('<title>Wirestream</title>');
    }
  });

  it('serves the scripts, the styles and the SDK bundle with their types', async () => {
    const types: Record<string, string> = {
      '/dashboard.css': 'text/css; charset=utf-8',
      '/js/dashboard.js': 'text/javascript; charset=utf-8',
      '/client.js': 'text/javascript; charset=utf-8',
    };
    for (const [path, type] of Object.entries(types)) {
      const res = await SELF.fetch(`https://ws.test${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe(type);
      expect((await res.text()).length, path).toBeGreaterThan(100);
    }
  });

  it('serves the views as one bundled script, not module by module', async () => {
    const res = await SELF.fetch('https://ws.test/js/dashboard.js');
    const script = await res.text();
    // Preact and every view are inside it; the SDK is its own file.
    for (const view of ['coordination', 'streams', 'anchoring'])
      expect(script, view).toMatch(new RegExp(`id:\\s*"${view}"`));
    expect(script).toMatch(/from\s*"\/client\.js"/);
    expect(script).not.toMatch(/from\s*"\.{1,2}\//);
    for (const path of ['/js/views/index.js', '/js/lib/live-feed.js']) {
      const module = await SELF.fetch(`https://ws.test${path}`);
      expect(module.status, path).toBe(404);
      await module.arrayBuffer();
    }
  });

  it('loads nothing from another origin: no CDN script, remote style or font', async () => {
    const html = await (await SELF.fetch('https://ws.test/')).text();
    const css = await (await SELF.fetch('https://ws.test/dashboard.css')).text();
    const js = await (await SELF.fetch('https://ws.test/js/dashboard.js')).text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(css).not.toMatch(/@import|@font-face|url\(/);
    expect(js).not.toMatch(/(from|import)\s*\(?\s*["'](https?:)?\/\//);
  });

  it('answers a revalidation with 304 while the file is unchanged', async () => {
    const first = await SELF.fetch('https://ws.test/js/dashboard.js');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{16,}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    await first.arrayBuffer();
    const again = await SELF.fetch('https://ws.test/js/dashboard.js', {
      headers: { 'If-None-Match': etag ?? '' },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const stale = await SELF.fetch('https://ws.test/js/dashboard.js', {
      headers: { 'If-None-Match': '"0000000000000000"' },
    });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it('answers HEAD without a body and unknown files with a problem+json 404', async () => {
    const head = await SELF.fetch('https://ws.test/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const missing = await SELF.fetch('https://ws.test/js/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    await missing.arrayBuffer();
  });
});
