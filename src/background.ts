import type { Deps } from './deps.js';
import { loadClockOffset } from './modules/integrations/integrations.sql.js';

export interface Background {
  stop(): Promise<void>;
}

/**
 * Starts the background loops of this process. Each loop reads the service clock, and claims its
 * work in the database, so several processes can run them side by side.
 */
export function startBackground(deps: Deps): Background {
  const timers: NodeJS.Timeout[] = [];
  if (deps.config.testClock) {
    // Another process may have moved the shared test clock.
    timers.push(
      setInterval(() => {
        loadClockOffset(deps.db)
          .then((offset) => {
            if (offset !== deps.clock.offsetSeconds()) {
              deps.clock.setOffsetSeconds(offset);
              deps.signals.emit('clock');
            }
          })
          .catch((error) => deps.log.warn({ err: error }, 'test clock refresh failed'));
      }, 500).unref(),
    );
  }
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
