import type { Timestamp } from '../../db/schema.js';

/** One row per daily job per Asia/Kolkata day: the claim that makes one process run it. */
export interface JobRunsTable {
  name: string;
  day: string;
  started_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface JobTables {
  job_runs: JobRunsTable;
}
