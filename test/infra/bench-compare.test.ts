import { describe, expect, it } from 'vitest';
import { median, orderOf, speedRatio } from '../../bench/compare.js';

/** The arithmetic of `BENCH_AGAINST` (bench/compare.ts): the alternation and how runs become a ratio. */
describe('bench comparison against an earlier commit', () => {
  it('alternates the builds, flipping the order every round', () => {
    const order = [0, 1, 2, 3].map(orderOf);
    expect(order).toEqual([
      ['current', 'earlier'],
      ['earlier', 'current'],
      ['current', 'earlier'],
      ['earlier', 'current'],
    ]);
    // over an even number of rounds each build goes first equally often
    expect(order.filter((o) => o[0] === 'current')).toHaveLength(2);
  });

  it('takes the middle run, or the mean of the two middle ones', () => {
    expect(median([300, 100, 200])).toBe(200);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('gives speed as current over earlier for rates and earlier over current for times, > 1 meaning current is faster', () => {
    // rates: the medians are 400 and 320
    expect(speedRatio([400, 380, 420], [320, 300, 400], 'rate')).toEqual({ ratio: 1.25, spread: [1.05, 1.27] });
    // times (p50 ms): the current build takes half as long
    expect(speedRatio([1, 1, 2], [2, 2, 2], 'time')).toEqual({ ratio: 2, spread: [1, 2] });
  });
});
