// The structure of src/ as layers of parts (a folder of core, a file at the top of core, commands, render, cli), each
// part drawn above the parts it imports. Fails, naming one import of each arrow, when the parts import each other in a
// circle: then no drawing has every arrow running down. Type-only and lazy (import()) imports count: a circle of
// types is still a knot to read. `node scripts/structure.mjs [--draw] [SRC]` (SRC: src/) prints the layers with --draw.
// Also fails where a folder's note is missing or thin (see `notes` below).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/**
 * The check of src/ (or `src`): `errors`, the lines naming each problem and circle (none when it passes), and, when it
 * passes, `drawing`, the layers top to bottom. The tests call it in their process: TypeScript loads once, not per case.
 */
export function structure(src = join(root, 'src')) {
  const files = readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(src, f));
  const known = new Set(files);

  /** The part a file of src/ belongs to. A subsystem's faults.ts is a leaf of the fault union, drawn with core/faults.ts. */
  function partOf(file) {
    const [top, sub, ...rest] = relative(src, file).split('/');
    if (top === 'core' && rest.length === 1 && rest[0] === 'faults.ts') return 'core/faults';
    if (top === 'core') return rest.length ? `core/${sub}` : `core/${sub.replace(/\.ts$/, '')}`;
    return sub === undefined ? top.replace(/\.ts$/, '') : top;
  }

  /** A relative import's file: `./x.js` is `./x.ts`, a folder its index. */
  function target(from, spec) {
    if (!spec.startsWith('.')) return undefined;
    const path = resolve(dirname(from), spec);
    for (const candidate of [path.replace(/\.js$/, '.ts'), `${path}.ts`, join(path, 'index.ts')]) {
      if (known.has(candidate)) return candidate;
    }
    return undefined;
  }

  /** part → part → one import that makes the arrow, for the message. */
  const arrows = new Map();
  for (const file of files) {
    const from = partOf(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const to = target(file, fileName);
      if (!to || partOf(to) === from) continue;
      if (!arrows.has(from)) arrows.set(from, new Map());
      if (!arrows.get(from).has(partOf(to))) arrows.get(from).set(partOf(to), `${relative(src, file)} → ${relative(src, to)}`);
    }
  }
  const parts = [...new Set(files.map(partOf))].sort();
  const out = (p) => [...(arrows.get(p)?.keys() ?? [])].sort();

  // Tarjan's strongly connected components: each with more than one part is a circle.
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  function visit(p) {
    index.set(p, next);
    low.set(p, next++);
    stack.push(p);
    onStack.add(p);
    for (const q of out(p)) {
      if (!index.has(q)) {
        visit(q);
        low.set(p, Math.min(low.get(p), low.get(q)));
      } else if (onStack.has(q)) low.set(p, Math.min(low.get(p), index.get(q)));
    }
    if (low.get(p) !== index.get(p)) return;
    const component = [];
    for (let q; q !== p;) {
      q = stack.pop();
      onStack.delete(q);
      component.push(q);
    }
    if (component.length > 1) circles.push(component.sort());
  }
  for (const p of parts) if (!index.has(p)) visit(p);

  /*
   * The notes: src/, each folder of it and each folder of core/ has a README.md that says what it owns, its risks and which
   * tests to run (`**Owns:**`, `**Risks:**`, `**Tests:**`, the last naming at least one path under test/); a folder
   * deeper down has its own note or is named (`name/`) in its parent's. Every path under test/ a note names exists, so
   * a note that sends the reader to a renamed test fails here. No folder holds more than 15 .ts files.
   */
  const MAX_FILES = 15;
  const problems = [];
  const base = dirname(src);
  const folders = readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(src, f)).isDirectory());
  for (const folder of ['', ...folders]) {
    const ts = readdirSync(join(src, folder)).filter((f) => f.endsWith('.ts')).length;
    if (ts > MAX_FILES)
      problems.push(`${join(relative(base, src), folder)}: ${ts} .ts files, more than ${MAX_FILES}: group them in folders`);
    const note = join(src, folder, 'README.md');
    const depth = folder === '' ? 0 : folder.split('/').length;
    const needsOwn = depth <= 1 || (depth === 2 && folder.startsWith('core/'));
    if (!existsSync(note)) {
      const parent = join(src, dirname(folder), 'README.md');
      const named = existsSync(parent) && readFileSync(parent, 'utf8').includes(`${folder.split('/').pop()}/`);
      if (needsOwn || !named)
        problems.push(`${join(relative(base, src), folder)}: no README.md${needsOwn ? '' : ", and its parent's note does not name it"}`);
      continue;
    }
    const text = readFileSync(note, 'utf8');
    const shown = relative(base, note);
    for (const section of ['Owns', 'Risks', 'Tests']) {
      if (!text.includes(`**${section}`)) problems.push(`${shown}: no **${section}:** section`);
    }
    const tests = text.slice(text.indexOf('**Tests')).match(/test\/[\w./-]*/g) ?? [];
    if (text.includes('**Tests') && !tests.length) problems.push(`${shown}: its **Tests:** names no path under test/`);
    for (const path of new Set(text.match(/\btest\/[\w./-]*\w\/?/g) ?? [])) {
      if (!existsSync(join(base, path))) problems.push(`${shown}: names ${path}, which does not exist`);
    }
  }
  const errors = problems.map((p) => `structure: ${p}`);

  for (const circle of circles) {
    errors.push(`structure: ${circle.join(', ')} import each other in a circle:`);
    for (const p of circle) for (const q of out(p)) if (circle.includes(q)) errors.push(`  ${arrows.get(p).get(q)}`);
  }
  if (errors.length) return { errors, drawing: [] };

  // A part's layer: one above the highest part it imports; leaves at the bottom.
  const layer = new Map();
  const layerOf = (p) => {
    if (!layer.has(p)) layer.set(p, Math.max(-1, ...out(p).map(layerOf)) + 1);
    return layer.get(p);
  };
  const layers = [];
  for (const p of parts) (layers[layerOf(p)] ??= []).push(p);
  const drawing = [];
  for (let i = layers.length - 1; i >= 0; i--) {
    drawing.push(`${String(i).padStart(2)}  ${layers[i].map((p) => `${p} → ${out(p).join(' ') || '∅'}`).join('\n    ')}`);
  }
  return { errors, drawing };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { errors, drawing } = structure(resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? join(root, 'src')));
  for (const line of errors) console.error(line);
  if (errors.length) process.exit(1);
  if (process.argv.includes('--draw')) console.log(drawing.join('\n'));
}
