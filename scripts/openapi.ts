/**
 * Writes docs/openapi.json from the route schemas (`npm run openapi`). The test suite fails when
 * the committed file differs from what the code generates.
 */
import { writeFile } from 'node:fs/promises';
import { generateOpenApi } from './openapi-document.js';

const document = await generateOpenApi();
await writeFile(new URL('../docs/openapi.json', import.meta.url), document);
process.stdout.write('docs/openapi.json written\n');
process.exit(0);
