/**
 * Maps a position in the built service (dist/…js) back to its TypeScript source line through the
 * .js.map files tsc writes, so profile rows point at src/… lines. A minimal reader of the source
 * map v3 "mappings" (base64 VLQ); no dependency for it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...B64].map((c, i) => [c, i]));

/** Per generated line: [generatedColumn, sourceIndex, originalLine][] in column order. */
type Lines = Array<Array<[number, number, number]>>;
interface Loaded {
  sources: string[];
  lines: Lines;
}

function decode(mappings: string): Lines {
  const lines: Lines = [];
  let source = 0;
  let originalLine = 0;
  for (const line of mappings.split(';')) {
    const segments: Array<[number, number, number]> = [];
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const c of segment) {
        const digit = DIGIT.get(c) ?? 0;
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0];
      if (values.length >= 4) {
        source += values[1];
        originalLine += values[2]; // the fourth field, the original column, is not needed
        segments.push([column, source, originalLine]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

const cache = new Map<string, Loaded | null>();

function load(file: string): Loaded | null {
  if (cache.has(file)) return cache.get(file)!;
  let loaded: Loaded | null;
  try {
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string; sourceRoot?: string };
    loaded = { sources: map.sources.map((s) => path.resolve(path.dirname(file), map.sourceRoot ?? '', s)), lines: decode(map.mappings) };
  } catch {
    loaded = null;
  }
  cache.set(file, loaded);
  return loaded;
}

/** The source file and 1-based line of a 0-based generated position, or null. */
export function originalPosition(file: string, line: number, column: number): { source: string; line: number } | null {
  const map = load(file);
  const segments = map?.lines[line];
  if (!map || !segments || segments.length === 0) return null;
  let best = segments[0];
  for (const segment of segments) {
    if (segment[0] > column) break;
    best = segment;
  }
  return { source: map.sources[best[1]], line: best[2] + 1 };
}
