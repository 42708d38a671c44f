import { dataClock, type Clock } from '../../lib/clock.js';
import { clampToHorizon, horizonWindows, kolkataDate, splitByMonth, type DateWindow } from '../../lib/time.js';
import { appendEvents, type AppendResult, type UnitOfWork } from '../events/events.log.js';
import { calendarEventDrafts, type CalendarKind, type CalendarSettings } from './calendar.payloads.js';
import { selectAppendTargets } from '../properties/properties.sql.js';

export interface CalendarEventOptions {
  clock: Clock;
  propertyId: number;
  /** The integration whose API call made the change; null for host and system changes. */
  actorIntegrationId: number | null;
  kinds: CalendarKind[];
  /**
   * The changed nights (any span: split into calendar months here and clamped to each receiving
   * integration's horizon), or 'horizon' for a change that affects every night (meal plans, tax,
   * booking rules): whole months from today to each integration's horizon end.
   */
  nights: DateWindow | DateWindow[] | 'horizon';
  settings: CalendarSettings;
}

/**
 * Records the calendar events of a change inside the writer's transaction, for every integration
 * covering the property: one event per type and calendar month touched, windowed to the changed
 * nights in that month and clamped to the receiver's horizon.
 */
export async function appendCalendarEvents(trx: UnitOfWork, options: CalendarEventOptions): Promise<AppendResult> {
  const todayOf = (integrationId: number) => kolkataDate(dataClock(options.clock, 'horizon', { integrationId }).now());
  const pieces =
    options.nights === 'horizon' ? null : (Array.isArray(options.nights) ? options.nights : [options.nights]).flatMap((w) => splitByMonth(w.from, w.to));
  return appendEvents(trx, {
    clock: options.clock,
    propertyId: options.propertyId,
    targets: await selectAppendTargets(trx, options.propertyId),
    actorIntegrationId: options.actorIntegrationId,
    build: (target) => {
      const windows =
        pieces === null
          ? horizonWindows(todayOf(target.integrationId), target.horizonDays)
          : pieces.flatMap((w) => clampToHorizon(w, todayOf(target.integrationId), target.horizonDays) ?? []);
      return calendarEventDrafts(trx, options.propertyId, options.kinds, windows, target, options.settings);
    },
  });
}
