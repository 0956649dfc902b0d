/**
 * Stands in for zod's `locales` module in the Worker bundle (wrangler.toml
 * [alias] "../locales/index.js", mirrored in vitest.config.ts).
 *
 * Why: `import { z } from 'zod'` hands esbuild the `z` namespace as a value,
 * so it keeps every member of it, including `z.locales`: error messages in ~50
 * languages, ~261 KiB of code and ~39 KiB of the gzip upload. Wirestream never
 * reads `z.locales`; zod's English messages come from its own `locales/en.js`,
 * which this does not replace, so every error message stays the same.
 *
 * The alias matches that exact import string in any package; only zod uses
 * it today (`v4/core/index.js`, `v4/classic/external.js`, `v4/mini/external.js`).
 */
export {};
