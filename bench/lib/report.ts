/** The rows of the bench table and bench/results.json. */
export interface Row {
  /** The bench item the row answers, the table's # column (the table is ordered by it). */
  item: number;
  scenario: string;
  engine: string;
  value: number;
  unit: string;
  /** The same measurement on the baseline, in the same unit, in the same run. */
  baseline?: number;
  /** Speed as a fraction of the baseline's: ours/baseline for rates, baseline/ours for times. 1 = as fast. */
  ratio?: number;
  target?: string;
  p50?: number;
  p99?: number;
  /** met / not met (when there is a target), and what else the reader must know. */
  note?: string;
  /** JSON only: CPU split, counts, checks. */
  detail?: Record<string, unknown>;
}

export const rows: Row[] = [];

export const round = (n: number, places = 2) => {
  const f = 10 ** places;
  return Math.round(n * f) / f;
};

/** "met" / "not met" for a `>= x` target. */
export function verdict(value: number | undefined, atLeast: number): string {
  return value !== undefined && value >= atLeast ? 'met' : 'not met';
}

export const joinNotes = (...parts: Array<string | number | false | undefined | null>) => parts.filter(Boolean).join('; ');

/** Rows by their number (stable: rows of one number keep the order they were measured in). */
export const ordered = (list: Row[] = rows) => [...list].sort((a, b) => a.item - b.item);

const HEADER = ['#', 'scenario', 'engine', 'value', 'unit', 'baseline', 'ratio', 'target', 'p50 ms', 'p99 ms', 'note'];
const cells = (r: Row) => [r.item, r.scenario, r.engine, r.value, r.unit, r.baseline, r.ratio, r.target, r.p50, r.p99, r.note];

export function formatTable(list: Row[] = ordered()): string {
  return textTable(HEADER, list.map(cells));
}

/** The same table as Markdown, for the README's performance section. */
export function formatMarkdown(list: Row[] = ordered()): string {
  return markdownTable(HEADER, list.map(cells));
}

/** A table cell: printed as its text, blank when absent. */
type Cell = string | number | boolean | null | undefined;

/** Columns padded to their widest cell. */
export function textTable(header: string[], list: Cell[][]): string {
  const lines = list.map((l) => l.map((v) => String(v ?? '')));
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  return `${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${lines.map(fmt).join('\n')}\n`;
}

export function markdownTable(header: string[], list: Cell[][]): string {
  const cell = (v: Cell) => String(v ?? '').replace(/\|/g, '\\|');
  const lines = list.map((l) => `| ${l.map(cell).join(' | ')} |`);
  return `| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n${lines.join('\n')}\n`;
}
