// `npm start` runs this first: it builds dist/ only when a source file (or a tsconfig) is newer
// than dist/main.js, so a restart with nothing changed starts at once. Plain JavaScript: it must
// run where only production dependencies are installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const output = path.join(root, 'dist', 'main.js');

function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestUnder(full));
    else newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

const sources = path.join(root, 'src');
if (!existsSync(sources)) process.exit(0); // a deployment of dist/ alone

const inputs = Math.max(
  newestUnder(sources),
  ...['tsconfig.json', 'tsconfig.build.json'].map((f) => (existsSync(path.join(root, f)) ? statSync(path.join(root, f)).mtimeMs : 0)),
);
if (existsSync(output) && statSync(output).mtimeMs >= inputs) process.exit(0);

const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
  if (existsSync(output)) {
    process.stderr.write('dist/ is older than src/ but TypeScript is not installed (production install): starting the existing build\n');
    process.exit(0);
  }
  process.stderr.write('dist/ has not been built and TypeScript is not installed: run `npm ci && npm run build` first\n');
  process.exit(1);
}
process.stderr.write('building dist/ (sources changed)\n');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
