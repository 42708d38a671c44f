import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

describe('partner quick start', () => {
  it('docs/partners.md shows sdk/examples/partner.mjs as it is, in at most 30 lines', async () => {
    const readme = await readFile(new URL('../../docs/partners.md', import.meta.url), 'utf8');
    const example = await readFile(new URL('../examples/partner.mjs', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Partner quick start'));
    const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    // The file's first line is its own title comment.
    expect(block).toBe(example.split('\n').slice(1).join('\n'));
    expect(block!.trimEnd().split('\n').length).toBeLessThanOrEqual(30);
  });
});
