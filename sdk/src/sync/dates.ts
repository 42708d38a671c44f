/** Calendar dates (`YYYY-MM-DD`) as plain day arithmetic in UTC; the service's dates carry no zone. */

const DAY_MS = 86_400_000;

export function toDay(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

export function fromDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return fromDay(toDay(date) + days);
}

export function eachDate(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = toDay(from), end = toDay(to); d <= end; d++) out.push(fromDay(d));
  return out;
}

export function lastOfMonth(date: string): string {
  const [y, m] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export function isDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = toDay(value);
  return Number.isFinite(day) && fromDay(day) === value;
}

/** The Asia/Kolkata calendar date of an instant (the service's "today"). */
export function kolkataDate(ms: number): string {
  return new Date(ms + 330 * 60_000).toISOString().slice(0, 10);
}

/** Inclusive windows of at most `size` nights covering [from, to]. */
export function chunkWindow(from: string, to: string, size: number): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (let start = from; start <= to; start = addDays(start, size)) {
    const end = addDays(start, size - 1);
    out.push({ from: start, to: end < to ? end : to });
  }
  return out;
}
