import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Reads the source under src/ into an import graph between modules and the tables each file names in SQL. */

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  module: string;
  /** Modules this file imports (type-only imports included: they are dependencies too). */
  imports: Array<{ module: string; spec: string }>;
  /** Tables named in Kysely query builders and raw sql`` text. */
  tables: string[];
}

export const root = path.resolve(import.meta.dirname, '../..');

/** `src/modules/<name>/…` is module `<name>`; `src/<dir>/…` is `<dir>`; a top-level file is its own module. */
export function moduleOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src') throw new Error(`not under src/: ${file}`);
  if (parts[1] === 'modules') return parts[2];
  if (parts.length === 2) return parts[1].replace(/\.ts$/, '');
  return parts[1];
}

function listTs(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const importRe = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The text of every sql`…` template, interpolations left out. */
export function sqlTemplates(text: string): string[] {
  const out: string[] = [];
  const start = /\bsql(?:<[^`(]*?>)?`/g;
  let m: RegExpExecArray | null;
  while ((m = start.exec(text))) {
    let i = m.index + m[0].length;
    let body = '';
    while (i < text.length && text[i] !== '`') {
      if (text[i] === '\\') {
        body += text.slice(i, i + 2);
        i += 2;
      } else if (text[i] === '$' && text[i + 1] === '{') {
        let depth = 1;
        i += 2;
        while (i < text.length && depth > 0) {
          if (text[i] === '{') depth++;
          else if (text[i] === '}') depth--;
          i++;
        }
        body += ' ? ';
      } else body += text[i++];
    }
    out.push(body);
    start.lastIndex = i + 1;
  }
  return out;
}

const builderRe = /\.(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin|using)\(\s*['"](\w+)(?:\s+as\s+\w+)?['"]/g;
const rawRe = /\b(?:from|join|into|update|table|using)\s+(?:only\s+)?"?(\w+)"?/gi;
const tableRefRe = /\bsql\.table\(\s*['"](\w+)['"]/g;

/** Tables `text` names, restricted to `known` (raw SQL also says `from generate_series` or `into v`). */
export function tablesIn(text: string, known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(builderRe)) found.add(m[1]);
  for (const m of text.matchAll(tableRefRe)) found.add(m[1]);
  for (const body of sqlTemplates(text)) for (const m of body.matchAll(rawRe)) found.add(m[1].toLowerCase());
  return [...found].filter((t) => known.has(t)).sort();
}

export function readSources(known: ReadonlySet<string>, skip: (file: string) => boolean): SourceFile[] {
  return listTs('src')
    .filter((f) => !skip(f))
    .map((file) => {
      const text = readFileSync(path.join(root, file), 'utf8');
      const imports: SourceFile['imports'] = [];
      for (const m of text.matchAll(importRe)) {
        const spec = m[1] ?? m[2];
        if (!spec.startsWith('.')) continue;
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        if (!target.startsWith('src/')) continue;
        imports.push({ module: moduleOf(target.replace(/\.js$/, '.ts')), spec });
      }
      return { file, module: moduleOf(file), imports, tables: tablesIn(text, known) };
    });
}

/** Module → modules it imports, self-edges left out. */
export function moduleGraph(files: SourceFile[], ignore: (file: string, target: string) => boolean): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const f of files) {
    if (!g.has(f.module)) g.set(f.module, new Set());
    for (const i of f.imports) if (i.module !== f.module && !ignore(f.file, i.module)) g.get(f.module)!.add(i.module);
  }
  return g;
}

export function reaches(g: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>([from]);
  const stack = [from];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === to) return true;
    for (const next of g.get(n) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(next);
    }
  }
  return false;
}

/** Every pair of modules that import each other, directly or through others, as `a↔b` (a < b). */
export function cyclePairs(g: Map<string, Set<string>>): string[] {
  const pairs: string[] = [];
  const mods = [...g.keys()].sort();
  for (const a of mods) for (const b of mods) if (a < b && reaches(g, a, b) && reaches(g, b, a)) pairs.push(`${a}↔${b}`);
  return pairs;
}

/** The direct edges `a→b` that lie on a cycle. */
export function cycleEdges(g: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const [a, targets] of g) for (const b of targets) if (reaches(g, b, a)) out.push(`${a}→${b}`);
  return out.sort();
}
