import type { Migration } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.js';
import * as properties from './2026_11_22_0002_properties.js';
import * as jobRuns from './2026_11_22_0003_job_runs.js';

/**
 * Every migration, by dated name (applied in name order). Listed here rather than read from the
 * folder so that the same list works from source (tests, tsx) and from the compiled build.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_properties': properties,
  '2026_11_22_0003_job_runs': jobRuns,
};
