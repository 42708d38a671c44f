import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateSdkTypes } from '../../scripts/openapi-sdk-types.js';

describe('generated SDK types', () => {
  it('sdk/src/generated/api.ts is what docs/openapi.json generates (run `npm run sdk:generate`)', async () => {
    const document = await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    const committed = await readFile(new URL('../src/generated/api.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await generateSdkTypes(document));
  });
});

describe("the SDK's API version", () => {
  it("is the service's: the events certify makes carry the version real deliveries carry", async () => {
    const { API_VERSION: service } = await import('../../src/lib/contract.js');
    const { API_VERSION: sdk } = await import('../src/events.js');
    expect(sdk).toBe(service);
  });
});
