import type { Deps } from '../../deps.js';

/** A job that runs once per Asia/Kolkata day (service clock), and on demand through the staff API. */
export interface DailyJob {
  name: string;
  run(deps: Deps): Promise<unknown>;
}
