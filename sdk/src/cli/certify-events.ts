import { randomInt } from 'node:crypto';
import { API_VERSION } from '../events.js';
import { ulid } from '../ids.js';

/**
 * certify's events: in the contract's envelope, about fictional properties of a fictional
 * integration, for one run.
 */

export interface FakeEvent {
  id: string;
  type: string;
  sequence: number;
  origin: 'partner' | 'doorloom';
  version: string;
  created_at: string;
  integration: { id: number; slug: string };
  property: { doorloom_id: number; external_id: string | null } | null;
  window: { from: string; to: string } | null;
  data: Record<string, unknown>;
}

export interface FakeProperty {
  id: number;
  externalId: string;
  units: Array<{ inventory_id: number; external_unit_id: string; name: string }>;
}

const pad = (n: number) => String(n).padStart(2, '0');
const IST_OFFSET_MS = 5.5 * 3600 * 1000;

/** An instant as the service writes it: seconds, in +05:30. */
function timestampOf(ms: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000 + IST_OFFSET_MS);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+05:30`;
}

/** Every night of next month (Asia/Kolkata), the one-calendar-month window events never exceed. */
function nextMonth(nowMs: number): string[] {
  const today = new Date(nowMs + IST_OFFSET_MS);
  const first = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1));
  const nights: string[] = [];
  for (let d = first; d.getUTCMonth() === first.getUTCMonth(); d = new Date(d.getTime() + 86_400_000)) {
    nights.push(d.toISOString().slice(0, 10));
  }
  return nights;
}

/**
 * The fictional integration, properties and sequences of one run. Ids and sequences are far above
 * what a real integration reaches, and random per run, so they never overwrite a real property's
 * state nor collide with an earlier run against the same receiver.
 */
export class Scenario {
  readonly integration = { id: 900_000 + randomInt(100_000), slug: 'doorloom-certify' };
  private nextSequence: number;
  private nextId = 9_000_000_000 + randomInt(1_000_000) * 1000;
  readonly nights: string[];

  constructor(private readonly nowMs: number) {
    this.nextSequence = 1_000_000_000 + randomInt(1_000_000) * 1000;
    this.nights = nextMonth(nowMs);
  }

  sequence(): number {
    return this.nextSequence++;
  }

  property(units: number): FakeProperty {
    const id = this.nextId++;
    return {
      id,
      externalId: `CERTIFY-${id}`,
      units: Array.from({ length: units }, (_, i) => ({
        inventory_id: id * 100 + i + 1,
        external_unit_id: `CERTIFY-${id}-U${i + 1}`,
        name: `Cottage ${i + 1}`,
      })),
    };
  }

  event(
    type: string,
    property: FakeProperty | null,
    data: Record<string, unknown>,
    options: { sequence?: number; window?: boolean; ageSeconds?: number } = {},
  ): FakeEvent {
    const at = this.nowMs - (options.ageSeconds ?? 0) * 1000;
    return {
      id: ulid(at),
      type,
      sequence: options.sequence ?? this.sequence(),
      origin: 'doorloom',
      version: API_VERSION,
      created_at: timestampOf(at),
      integration: this.integration,
      property: property ? { doorloom_id: property.id, external_id: property.externalId } : null,
      window: options.window ? { from: this.nights[0], to: this.nights[this.nights.length - 1] } : null,
      data,
    };
  }

  /**
   * An availability.changed payload for the month: `busy(unit, night)` says whether a unit is held
   * or blocked that night.
   */
  availability(property: FakeProperty, busy: (unit: number, night: number) => boolean): Record<string, unknown> {
    const total = property.units.length;
    const units = property.units.map((u, i) => ({ ...u, unavailable: this.nights.filter((_, n) => busy(i, n)) }));
    const dates = this.nights.map((date, n) => {
      const taken = property.units.filter((_, i) => busy(i, n)).length;
      return { date, available_units: total - taken, total_units: total, is_blocked: false, block_scope: null, units_cap: null };
    });
    return { total_units: total, units, dates };
  }

  /** property.changed's data: the Property block with its units. */
  propertyChanged(property: FakeProperty): Record<string, unknown> {
    return {
      property: {
        doorloom_id: property.id,
        external_id: property.externalId,
        coverage: 'active',
        name: `Certification Villa ${property.id}`,
        property_type: 'villa',
        status: 'active',
        is_master: true,
        master_property_id: property.id,
        units: property.units.map((u, i) => ({ ...u, code: null, is_active: true, is_default: i === 0, max_occupancy: 4, deleted: false })),
      },
    };
  }
}
