/**
 * Calendar dates and timestamps in Asia/Kolkata. India has had a fixed +05:30 offset with no
 * daylight saving since 1945, so the conversion is plain arithmetic rather than a tz database
 * lookup; that keeps it cheap on hot paths (every response carries timestamps).
 */
const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `YYYY-MM-DDTHH:mm:ss+05:30`, second precision. */
export function formatTimestamp(value: Date | number): string {
  const ms = typeof value === 'number' ? value : value.getTime();
  const d = new Date(Math.floor(ms / 1000) * 1000 + IST_OFFSET_MS);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+05:30`
  );
}

export function formatTimestampOrNull(value: Date | number | null | undefined): string | null {
  return value == null ? null : formatTimestamp(value);
}

/** The Asia/Kolkata calendar date of an instant. */
export function kolkataDate(value: Date | number): string {
  const ms = typeof value === 'number' ? value : value.getTime();
  return fromEpochDay(Math.floor((ms + IST_OFFSET_MS) / DAY_MS));
}

/** The instant at which an Asia/Kolkata calendar date begins. */
export function startOfKolkataDate(date: string): Date {
  return new Date(toEpochDay(date) * DAY_MS - IST_OFFSET_MS);
}

/** The refusal of a value that is not a real date written `YYYY-MM-DD` (see isValidDate). */
export const DATE_MESSAGE = 'must be a date written YYYY-MM-DD';

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isValidDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Days since 1970-01-01 for a `YYYY-MM-DD` date. */
export function toEpochDay(date: string): number {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return Math.floor(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS);
}

export function fromEpochDay(day: number): string {
  const d = new Date(day * DAY_MS);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export function addDays(date: string, days: number): string {
  return fromEpochDay(toEpochDay(date) + days);
}

/** Whole days from `a` to `b` (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return toEpochDay(b) - toEpochDay(a);
}

/** 0 = Sunday … 6 = Saturday. */
export function dayOfWeek(date: string): number {
  return (toEpochDay(date) + 4) % 7; // 1970-01-01 was a Thursday
}

/** Every date from `from` to `to`, both inclusive. */
export function eachDate(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = toEpochDay(from), end = toEpochDay(to); d <= end; d++) out.push(fromEpochDay(d));
  return out;
}

export function firstOfMonth(date: string): string {
  return `${date.slice(0, 8)}01`;
}

export function lastOfMonth(date: string): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  return `${date.slice(0, 8)}${pad(daysInMonth(y, m))}`;
}

export interface DateWindow {
  from: string;
  to: string;
}

/**
 * Splits an inclusive window of nights into calendar-month windows (events never span more than
 * one calendar month).
 */
export function splitByMonth(from: string, to: string): DateWindow[] {
  const out: DateWindow[] = [];
  let start = from;
  while (start <= to) {
    const monthEnd = lastOfMonth(start);
    const end = monthEnd < to ? monthEnd : to;
    out.push({ from: start, to: end });
    start = addDays(end, 1);
  }
  return out;
}

/**
 * Groups an arbitrary set of nights into windows that each stay inside one calendar month and
 * cover consecutive runs; used when a change touches scattered nights (old and new stay dates).
 */
export function windowsForNights(nights: Iterable<string>): DateWindow[] {
  const sorted = [...new Set(nights)].sort();
  const out: DateWindow[] = [];
  for (const night of sorted) {
    const last = out[out.length - 1];
    if (last && last.to.slice(0, 7) === night.slice(0, 7)) {
      last.to = night; // same month: one window from the first to the last touched night
    } else {
      out.push({ from: night, to: night });
    }
  }
  return out;
}

/**
 * The nights an integration's events cover: from today through the end of the calendar month in
 * which the horizon ends (a month enters the horizon whole, on its first day: decisions §6).
 */
export function horizonEnd(today: string, horizonDays: number): string {
  return lastOfMonth(addDays(today, horizonDays - 1));
}

/** Whole-month windows from today to the horizon's end (property create, sync). */
export function horizonWindows(today: string, horizonDays: number): DateWindow[] {
  return splitByMonth(today, horizonEnd(today, horizonDays));
}

/** Cuts a window of changed nights to [today, horizon end]; null when nothing is left. */
export function clampToHorizon(window: DateWindow, today: string, horizonDays: number): DateWindow | null {
  const from = window.from < today ? today : window.from;
  const end = horizonEnd(today, horizonDays);
  const to = window.to > end ? end : window.to;
  return from <= to ? { from, to } : null;
}
