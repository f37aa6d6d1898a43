/**
 * Whether the compiled tree (dist/, written by `npm run build`, which `npm ci` runs through the
 * `prepare` script) was built from exactly the sources of this checkout, so that the command may
 * run it instead of compiling the TypeScript on load (tsx): the same code, about a second less
 * start-up and CPU per run.
 *
 * The build records what it compiled (dist/build-stamp.json): every input file's path, size and
 * modification time, and a hash of their contents. The tree is fresh when the same files are
 * there with the same sizes and either the same times (a stat of each, a few milliseconds) or,
 * where a time moved (a checkout, a touch), the same contents. A file added, removed or changed
 * since the build makes it stale, and the command compiles the sources on load as before: a
 * stale dist/ is never run.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What the compiled tree is made from: the code tsc compiles, the specs the build copies, and the compiler's settings. */
const INPUTS = ['src', 'suites', 'reporters', 'specs', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const STAMP = 'build-stamp.json';

/** Every input file under `root`: path (with /), size and modification time, sorted by path. */
export function listInputs(root) {
  const out = [];
  const visit = (path) => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    out.push({ path: relative(root, path).split(sep).join('/'), size: st.size, mtimeMs: st.mtimeMs });
  };
  for (const input of INPUTS) visit(join(root, input));
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A hash of the files' paths and contents. */
export function contentHash(root, files) {
  const h = createHash('sha256');
  for (const f of files)
    h.update(f.path)
      .update('\0')
      .update(readFileSync(join(root, f.path)))
      .update('\0');
  return h.digest('hex');
}

/** What the inputs under `root` are now (the build takes it before compiling, so that an edit made meanwhile leaves the tree stale). */
export function stampOf(root) {
  const files = listInputs(root);
  return { hash: contentHash(root, files), files };
}

/** Records in `dist` the stamp taken before compiling (the build calls this once the tree is complete). */
export function writeStamp(dist, stamp) {
  writeFileSync(join(dist, STAMP), `${JSON.stringify(stamp)}\n`);
}

/** True when `dist` holds a build of exactly the current inputs under `root`. */
export function compiledIsFresh(root, dist) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dist, STAMP), 'utf8'));
  } catch {
    return false;
  }
  const files = listInputs(root);
  const built = stamp.files;
  if (!Array.isArray(built) || built.length !== files.length) return false;
  let timesMoved = false;
  for (let i = 0; i < files.length; i++) {
    const a = files[i];
    const b = built[i];
    if (a.path !== b.path || a.size !== b.size) return false;
    if (a.mtimeMs !== b.mtimeMs) timesMoved = true;
  }
  return !timesMoved || contentHash(root, files) === stamp.hash;
}
