import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { compiler, statementTemplate } from '../../src/db/statement-template.js';
import { snapshotDataStatement, snapshotHeadStatement } from '../../src/modules/calendar/calendar.snapshots.js';
import { snapshotDataQuery, snapshotHeadQuery } from '../../src/modules/calendar/calendar.sql.js';
import { eventsInsert, insertEventsQuery } from '../../src/modules/events/events.sql.js';
import { lastSequenceQuery } from '../../src/modules/integrations/integrations.sql.js';
import { coveredPropertyQuery } from '../../src/modules/properties/properties.resolve.js';

// Compiles without a database, as the service's own templates do.
const db = compiler;

const compiled = (q: { compile(p: Kysely<DB>): { sql: string; parameters: readonly unknown[] } }) => {
  const { sql: text, parameters } = q.compile(db);
  return { text, parameters };
};

describe('statementTemplate', () => {
  const byId = (v: { id: number; name: string }, shape: 'plain' | 'named') =>
    db
      .selectFrom('properties')
      .select('id')
      .where('id', '=', v.id)
      .where((eb) => (shape === 'named' ? eb('name', '=', v.name) : eb.lit(true)))
      .limit(1);
  const template = statementTemplate(byId);

  it('sends each call its own values in the statement built once per shape', () => {
    const first = compiled(template('named', { id: 1, name: 'a' }));
    const second = compiled(template('named', { id: 2, name: 'b' }));
    expect(second.text).toBe(first.text);
    expect(first.parameters).toEqual([1, 'a', 1]);
    expect(second.parameters).toEqual([2, 'b', 1]);
    // exactly what building it afresh gives
    expect(second).toEqual(compiled(byId({ id: 2, name: 'b' }, 'named')));
  });

  it('keeps one statement per shape', () => {
    const plain = compiled(template('plain', { id: 3, name: 'ignored' }));
    expect(plain).toEqual(compiled(byId({ id: 3, name: 'ignored' }, 'plain')));
    expect(plain.text).not.toBe(compiled(template('named', { id: 3, name: 'x' })).text);
  });

  it('sends a null as NULL, and arrays and dates as single values', () => {
    const t = statementTemplate((v: { ids: number[]; at: Date; note: string | null }) => sql`select ${v.ids}::int[], ${v.at}::timestamptz, ${v.note}::text`);
    const at = new Date('2026-01-01T00:00:00Z');
    expect(compiled(t('only', { ids: [1, 2], at, note: null })).parameters).toEqual([[1, 2], at, null]);
  });

  it('refuses a build that computes with a value instead of sending it', () => {
    const t = statementTemplate((v: { day: string }) => sql`select ${v.day + 'T00:00'}::timestamp`);
    expect(() => t('only', { day: '2026-01-01' })).toThrow(/the value "day" was used while building/);
  });
});

describe('the snapshot statements built once per shape', () => {
  const asks = [
    { integrationId: 4, ref: 'VILLA-1', refId: null },
    { integrationId: 5, ref: '17', refId: 17 },
  ];
  it.each(asks)('equal the statements built afresh, %o', (ask) => {
    const window = { from: '2027-03-01', to: '2027-05-31' };
    const property = coveredPropertyQuery(db, ask.integrationId, ask.ref);
    const lastSequence = lastSequenceQuery(db, ask.integrationId);
    expect(compiled(snapshotHeadStatement(ask))).toEqual(compiled(snapshotHeadQuery(property, lastSequence)));
    for (const kind of ['availability', 'rates', 'restrictions'] as const) {
      const known = { ids: [1, 2], versions: ['10', '11'] };
      expect(compiled(snapshotDataStatement(ask, window, kind, known))).toEqual(
        compiled(snapshotDataQuery(db, property, lastSequence, window, kind, ask.integrationId, known)),
      );
    }
  });
});

describe('the events insert built once per number of rows', () => {
  it('equals the statement built afresh', () => {
    const target = { integrationId: 3, origin: 'doorloom' as const, propertyId: null, createdAt: new Date('2027-01-01T00:00:00Z') };
    const rows = [1, 2, 3].map((n) => ({
      id: `E${n}`,
      type: 'availability.changed',
      from: n === 2 ? null : '2027-01-0' + n,
      to: n === 2 ? null : '2027-01-09',
      head: `{"n":${n},`,
      tail: '}',
      status: n === 3 ? ('skipped' as const) : ('pending' as const),
    }));
    for (const count of [1, 3]) {
      expect(compiled(insertEventsQuery(target, rows.slice(0, count)))).toEqual(compiled(eventsInsert(target, rows.slice(0, count))));
    }
    expect(compiled(insertEventsQuery({ ...target, integrationId: 8, propertyId: 5 }, rows))).toEqual(
      compiled(eventsInsert({ ...target, integrationId: 8, propertyId: 5 }, rows)),
    );
  });
});
