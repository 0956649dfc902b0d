#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
// a client nobody here wrote) against a running Wirestream's /mcp:
//   node tools/mcp-conformance.mjs --url http://127.0.0.1:8787 --token <token>
// The suite needs Node ≥ 22 and the project runs on Node 20, so the Node 22
// that the npm registry's `node` package provides is installed, with the
// suite, into .local/tools/mcp/ (gitignored; once). The suite sends no
// credentials: a loopback proxy adds `Authorization: Bearer <token>` and
// forwards every request untouched otherwise (Host and Origin included, so
// the DNS-rebinding scenario reaches the server's own check).
// Expected failures: test/mcp-conformance-baseline.yml (scenarios that need
// the reference server's fixture tools, each with why). Exit code: the suite's.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine } from './lib/command-line.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS = path.join(root, '.local/tools/mcp');
const NODE22 = path.join(TOOLS, 'node_modules/.bin/node');
const SUITE = path.join(TOOLS, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const VERSIONS = { node: '22.23.3', '@modelcontextprotocol/conformance': '0.1.16' };
const USAGE = 'usage: node tools/mcp-conformance.mjs --url URL --token TOKEN [--scenario NAME]';

/** Installs Node 22 and the suite (exact versions) unless they are there. */
export function ensureSuite(log = (line) => console.error(line)) {
  if (existsSync(NODE22) && existsSync(SUITE)) return;
  log(`installing node@${VERSIONS.node} and the MCP conformance suite into ${TOOLS}`);
  mkdirSync(TOOLS, { recursive: true });
  writeFileSync(
    path.join(TOOLS, 'package.json'),
    JSON.stringify({ name: 'wirestream-mcp-tools', private: true, allowScripts: { node: true } }),
  );
  const specs = Object.entries(VERSIONS).map(([name, v]) => `${name}@${v}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', ...specs], {
    cwd: TOOLS,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A loopback proxy to `target` that adds the bearer token. */
function authProxy(target, token) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', (error) => {
      res.writeHead(502).end(String(error));
    });
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function runConformance({ url, token, scenario, stdio = 'inherit' }) {
  ensureSuite();
  const proxy = await authProxy(url, token);
  const port = proxy.address().port;
  const args = [
    SUITE,
    'server',
    '--url',
    `http://127.0.0.1:${port}/mcp`,
    '--expected-failures',
    path.join(root, 'test/mcp-conformance-baseline.yml'),
    ...(scenario ? ['--scenario', scenario] : []),
  ];
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(NODE22, args, { stdio, env: { ...process.env, NO_COLOR: '1' } });
      let output = '';
      child.stdout?.on('data', (d) => {
        output += d;
      });
      child.stderr?.on('data', (d) => {
        output += d;
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code: code ?? 1, output }));
    });
  } finally {
    proxy.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = commandLine(
    {
      options: {
        url: { type: 'string', default: 'http://127.0.0.1:8787' },
        token: { type: 'string', default: process.env.WIRESTREAM_TOKEN ?? '' },
        scenario: { type: 'string' },
      },
    },
    USAGE,
  );
  if (!values.token) {
    console.error(`error: --token (or WIRESTREAM_TOKEN) is required\n\n${USAGE}`);
    process.exit(2);
  }
  const { code } = await runConformance(values);
  process.exit(code);
}
