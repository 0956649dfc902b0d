// The admin credential of the command-line tools that call /v1/admin/…:
// WIRESTREAM_ADMIN_TOKEN, else ADMIN_TOKEN in .dev.vars (written by npm start).
import { existsSync, readFileSync } from 'node:fs';

/** The admin token; exits 2 saying where to put one when there is none. */
export function adminToken() {
  if (process.env.WIRESTREAM_ADMIN_TOKEN) return process.env.WIRESTREAM_ADMIN_TOKEN;
  if (existsSync('.dev.vars')) {
    const match = /^\s*ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?\s*$/m.exec(
      readFileSync('.dev.vars', 'utf8'),
    );
    if (match) return match[1];
  }
  console.error('no admin token: set WIRESTREAM_ADMIN_TOKEN or run npm start once (.dev.vars)');
  process.exit(2);
}
