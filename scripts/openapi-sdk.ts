/**
 * Writes sdk/src/generated/api.ts from docs/openapi.json (`npm run sdk:generate`). Run it after
 * `npm run openapi`; the test suite fails when the committed file differs from what this generates.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { generateSdkTypes } from './openapi-sdk-types.js';

const document = await readFile(new URL('../docs/openapi.json', import.meta.url), 'utf8');
await writeFile(new URL('../sdk/src/generated/api.ts', import.meta.url), await generateSdkTypes(document));
process.stdout.write('sdk/src/generated/api.ts written\n');
