import { describe, expect, it } from 'vitest';
import { StatementBatcher } from '../../src/db/batcher.js';

describe('StatementBatcher', () => {
  it('runs one write at a time and merges the calls that queue meanwhile, answering each in order', async () => {
    const batches: number[][] = [];
    let running = 0;
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      running += 1;
      expect(running).toBe(1);
      batches.push(inputs);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return inputs.map((n) => n * 10);
    });
    const first = batcher.run(1); // finds nothing running: written alone
    const rest = [2, 3, 4, 5].map((n) => batcher.run(n)); // queue behind it: written together
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
    expect(await batcher.run(6)).toBe(60);
    expect(batches).toHaveLength(3);
  });

  it('fails every call of a failed batch, and only those', async () => {
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (inputs.includes(2)) throw new Error('refused');
      return inputs;
    });
    const one = batcher.run(1);
    const two = batcher.run(2);
    const three = batcher.run(3);
    await expect(one).resolves.toBe(1);
    await expect(two).rejects.toThrow('refused');
    await expect(three).rejects.toThrow('refused'); // in the same batch as 2
    await expect(batcher.run(4)).resolves.toBe(4);
  });

  it('splits queues longer than the largest batch', async () => {
    const sizes: number[] = [];
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      sizes.push(inputs.length);
      return inputs;
    }, 3);
    await Promise.all(Array.from({ length: 8 }, (_, i) => batcher.run(i)));
    expect(sizes).toEqual([1, 3, 3, 1]);
  });
});
