/**
 * Money is INR as a JSON number with at most two decimals (13000.00 is sent as 13000).
 * Rounding is half away from zero on the decimal value, not on the binary float: 1.005 → 1.01.
 */
export function roundMoney(value: number | string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isFinite(n)) throw new Error(`not an amount: ${value}`);
  const text = String(Math.abs(n));
  // Exponent notation (below 1e-6 or from 1e21) cannot take the `e2` suffix: scale the float instead.
  const rounded = (Math.sign(n) * Math.round(text.includes('e') ? Math.abs(n) * 100 : Number(`${text}e2`))) / 100;
  return rounded === 0 ? 0 : rounded; // never -0
}

export function moneyOrNull(value: number | string | null | undefined): number | null {
  return value == null ? null : roundMoney(value);
}
