import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateOpenApi } from '../scripts/openapi-document.js';

describe('OpenAPI document', () => {
  it('docs/openapi.json matches the code (run `npm run openapi` after changing a route)', async () => {
    const committed = await readFile(new URL('../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(await generateOpenApi());
  });

  it('is OpenAPI 3.1 and documents the partner and staff routes', async () => {
    const document = JSON.parse(await generateOpenApi());
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths).toHaveProperty(['/api/integrations/v1/me']);
    expect(document.paths).toHaveProperty(['/api/staff/v1/integrations']);
  });
});
