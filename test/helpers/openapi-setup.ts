import { afterAll, afterEach } from 'vitest';
import { checkEveryApp, takeFindings } from './openapi-check.js';

// Every app built in this worker is checked against docs/openapi.json (openapi-check.ts); what the
// document does not describe fails the test that received it.
checkEveryApp();

function failOnFindings(): void {
  const findings = takeFindings();
  if (findings.length === 0) return;
  const unique = [...new Set(findings)];
  throw new Error(`${unique.length} answer(s) the OpenAPI document does not describe:\n${unique.slice(0, 20).join('\n')}`);
}

afterEach(failOnFindings);
// answers that finish after a file's last test (background deliveries, closing apps)
afterAll(failOnFindings);
