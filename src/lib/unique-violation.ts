/**
 * True when PostgreSQL refused a write for a duplicate key (SQLSTATE 23505), on `constraint` when
 * one is named. PGlite gives no constraint field, only its name inside the message.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}
