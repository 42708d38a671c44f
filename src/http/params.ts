import { notFound } from './errors.js';

/** A numeric path id; anything else names nothing, so it answers 404 like a missing record. */
export function parseId(value: unknown, what = 'record'): number {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,9}$/.test(value)) throw notFound(`No such ${what}.`);
  const n = Number(value);
  if (n > 2147483647) throw notFound(`No such ${what}.`);
  return n;
}
