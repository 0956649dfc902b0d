// Bundles every project with `wrangler deploy --dry-run --outdir` (the same
// esbuild pass as a real deploy) and records the upload size wrangler reports.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { OUT, PROJECTS, ROOT } from './targets.mjs';

/**
 * Wirestream is built from a snapshot of HEAD (git archive) by default, so a
 * benchmark measures committed code and not a teammate's half-saved file;
 * `--worktree` measures the working tree instead (while tuning).
 */
export function snapshotHead() {
  const sha = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).stdout.trim();
  const dir = path.join(OUT, `src-${sha}`);
  mkdirSync(OUT, { recursive: true }); // a fresh clone has no bench/.out yet
  // Keep only the current snapshot.
  for (const old of readdirSync(OUT, { withFileTypes: true })) {
    if (old.isDirectory() && old.name.startsWith('src-') && old.name !== `src-${sha}`) {
      rmSync(path.join(OUT, old.name), { recursive: true, force: true });
    }
  }
  if (!existsSync(path.join(dir, 'wrangler.toml'))) {
    mkdirSync(dir, { recursive: true });
    const tar = spawnSync('sh', ['-c', `git archive --format=tar HEAD | tar -x -C '${dir}'`], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (tar.status !== 0) throw new Error('git archive HEAD failed');
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  }
  return { sha, dir };
}

export const OFFLINE = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
};

const PEERS = path.join(ROOT, 'bench/peers');
const WRANGLER = path.join(ROOT, 'node_modules/.bin/wrangler');

/** Installs the peers' own package (agents wants react 19; the root has 18). */
export function ensurePeers() {
  if (existsSync(path.join(PEERS, 'node_modules/agents/package.json'))) return;
  console.log('installing bench/peers (first run) …');
  // --loglevel=error: agents' Vite plugin pulls in @babel 8, whose packages
  // declare Node 22 and print ~40 EBADENGINE warnings; nothing of them runs here.
  const args = ['ci', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', PEERS];
  const result = spawnSync('npm', args, {
    stdio: 'inherit',
    env: OFFLINE,
  });
  if (result.status !== 0) throw new Error('npm ci in bench/peers failed');
}

/** Runs wrangler in `cwd`, the project's folder: its [build] step builds that tree. */
function run(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(WRANGLER, args, { cwd, env: OFFLINE });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`wrangler ${args.join(' ')}\n${out}`)),
    );
  });
}

/** The biggest packages in the bundle (bytes in output, before gzip). */
function largestParts(metafile) {
  try {
    const meta = JSON.parse(readFileSync(metafile, 'utf8'));
    const output = Object.values(meta.outputs).find((o) => Object.keys(o.inputs).length > 0);
    const sizes = new Map();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
        input.split('/').slice(0, 2).join('/');
      sizes.set(pkg, (sizes.get(pkg) ?? 0) + bytesInOutput);
    }
    return [...sizes.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([pkg, bytes]) => ({ pkg, kib: bytes / 1024 }));
  } catch {
    return [];
  }
}

function kib(text, label) {
  const match = new RegExp(`${label}: ([\\d.]+) KiB`).exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/**
 * Builds `name` into bench/.out/<name>[-min]. Returns the bundle's path and
 * sizes: wrangler's own "Total Upload" figures plus our gzip of the file.
 */
export async function build(name, { minify = false, srcDir = ROOT, names = false } = {}) {
  const project = PROJECTS[name];
  const config =
    project.peer || name === 'ceiling'
      ? path.join(ROOT, project.config)
      : path.join(srcDir, project.config);
  const outdir = path.join(OUT, minify ? `${name}-min` : names ? `${name}-names` : name);
  const args = ['deploy', '--dry-run', '--outdir', outdir, '--config', config];
  if (minify) args.push('--minify');
  // Profiles need readable function names: override wrangler.toml's `minify`.
  if (names) args.push('--minify=false');
  const metafile = path.join(OUT, `${name}${minify ? '-min' : ''}.meta.json`);
  args.push('--metafile', metafile);
  const started = performance.now();
  const log = await run(args, path.dirname(config));
  const script = readdirSync(outdir).find((f) => f.endsWith('.js'));
  if (!script) throw new Error(`no bundle in ${outdir}`);
  const scriptPath = path.join(outdir, script);
  const bytes = readFileSync(scriptPath);
  // Wirestream's MCP Worker (mcp/wrangler.toml), which its MCP service binding
  // names: bench/lib/runtime.mjs runs it beside the Worker when a scenario asks.
  const mcpConfig = path.join(path.dirname(config), 'mcp/wrangler.toml');
  let mcp = null;
  if (!project.peer && existsSync(mcpConfig)) {
    const mcpOut = `${outdir}-mcp`;
    const mcpLog = await run(
      ['deploy', '--dry-run', '--outdir', mcpOut, '--config', mcpConfig],
      ROOT,
    );
    const mcpScript = readdirSync(mcpOut).find((f) => f.endsWith('.js'));
    if (!mcpScript) throw new Error(`no bundle in ${mcpOut}`);
    mcp = {
      outdir: mcpOut,
      scriptPath: path.join(mcpOut, mcpScript),
      config: mcpConfig,
      uploadKiB: kib(mcpLog, 'Total Upload'),
      uploadGzipKiB: kib(mcpLog, 'gzip'),
    };
  }
  return {
    name,
    outdir,
    scriptPath,
    config,
    mcp,
    buildMs: performance.now() - started,
    rawKiB: statSync(scriptPath).size / 1024,
    gzipKiB: gzipSync(bytes).length / 1024,
    uploadKiB: kib(log, 'Total Upload'),
    uploadGzipKiB: kib(log, 'gzip'),
    parts: largestParts(metafile),
  };
}
