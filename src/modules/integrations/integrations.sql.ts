import type { BrandOffset } from '../../lib/clock.js';
import { sql, type AliasableExpression, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

type Q = Kysely<DB> | Transaction<DB>;

/** An integration's delivery figures as GET /me shows them, one row per integration (webhooks' `deliveryStateSource`). */
export interface DeliveryFigures {
  integration_id: number;
  undelivered: number;
  cursor: number;
  consecutive_failures: number;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  paused_at: Date | null;
  paused_reason: string | null;
  next_attempt_at: Date | null;
}

/** The derived tables of higher modules that GET /me joins to the integration row. */
export interface FigureSources {
  /** Every integration's delivery figures (webhooks). */
  delivery: AliasableExpression<DeliveryFigures>;
  /** The coverage rows, one per covered property and integration (properties). */
  coverage: AliasableExpression<{ integration_id: number }>;
}

export function findBrand(db: Q, id: number) {
  return db.selectFrom('brands').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether the brand is a sandbox (its integrations may call the test-helper routes). */
export async function brandIsSandbox(db: Q, id: number): Promise<boolean> {
  const row = await db.selectFrom('brands').select('sandbox').where('id', '=', id).executeTakeFirst();
  return row?.sandbox === true;
}

export function findIntegration(db: Q, id: number) {
  return db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The last sequence recorded for the integration (0 when none or no such integration): a listing's watermark. */
export async function selectLastSequence(db: Q, integrationId: number): Promise<number> {
  const row = await db.selectFrom('integrations').select('last_sequence').where('id', '=', integrationId).executeTakeFirst();
  return row?.last_sequence ?? 0;
}

/**
 * Allocates `count` sequences of the integration's event log, as a statement to run as a CTE of
 * the insert that numbers the events: answers the base (the sequences are base + 1 … base +
 * count), or no row when the integration is disabled. Its row lock is held to the commit, so no
 * other writer allocates in between.
 */
export function allocateSequencesQuery(integrationId: unknown, count: number): RawBuilder<{ base: number }> {
  return sql`update integrations set last_sequence = last_sequence + ${count} where id = ${integrationId} and status != 'disabled' returning last_sequence - ${count} as base`;
}

/** The integration's last sequence, as a query to run inside another statement (a snapshot's watermark). */
export function lastSequenceQuery(db: Q, integrationId: number) {
  return db.selectFrom('integrations').select('last_sequence').where('id', '=', integrationId);
}

/**
 * The integrations events may be recorded for (not disabled), with what an append needs of each,
 * as a derived table to join on `id`: properties joins it with coverage for a property's targets.
 */
export const appendTargetsSource = sql`(select id, slug, webhook_event_types, horizon_days, webhook_url is not null as has_webhook from integrations where status != 'disabled')`;

/** The brands whose clock runs ahead of the service clock, with their integrations' ids. */
export async function selectBrandOffsets(db: Q): Promise<BrandOffset[]> {
  const rows = await db
    .selectFrom('brands as b')
    .leftJoin('integrations as i', 'i.brand_id', 'b.id')
    .select(['b.id as brand_id', 'b.clock_offset_seconds', 'i.id as integration_id'])
    .where('b.clock_offset_seconds', '!=', 0)
    .execute();
  const brands = new Map<number, BrandOffset>();
  for (const row of rows) {
    const brand = brands.get(row.brand_id) ?? { brandId: row.brand_id, offsetSeconds: row.clock_offset_seconds, integrationIds: [] };
    if (row.integration_id !== null) brand.integrationIds.push(row.integration_id);
    brands.set(row.brand_id, brand);
  }
  return [...brands.values()];
}

/** The ids of a brand's integrations. */
export async function brandIntegrationIds(db: Q, brandId: number): Promise<number[]> {
  return (await db.selectFrom('integrations').select('id').where('brand_id', '=', brandId).orderBy('id').execute()).map((r) => r.id);
}

/** Moves a brand's clock forward atomically; answers the new offset. */
export async function advanceBrandOffset(db: Q, brandId: number, seconds: number): Promise<number> {
  const row = await db
    .updateTable('brands')
    .set((eb) => ({ clock_offset_seconds: eb('clock_offset_seconds', '+', seconds) }))
    .where('id', '=', brandId)
    .returning('clock_offset_seconds')
    .executeTakeFirstOrThrow();
  return row.clock_offset_seconds;
}

/** Ids of the brands whose plan is active (`true`) or not, as a subquery. */
export function brandIdsWithPlan(db: Q, active: boolean) {
  return db.selectFrom('brands').select('id').where('plan_active', '=', active);
}

/** Each integration's horizon and status, as a derived table other modules join (flattened into a plain join). */
export function integrationHorizons(db: Q) {
  return db.selectFrom('integrations').select(['id', 'horizon_days', 'status']);
}

/** Each integration's delivery configuration, as a derived table the webhooks module joins (flattened into a plain join). */
export function deliveryConfigSource(db: Q) {
  return db.selectFrom('integrations').select(['id', 'slug', 'status', 'webhook_url', 'webhook_event_types', 'webhook_timeout_seconds']);
}

/** The integration's status; with `forUpdate`, its row locked until the transaction ends. */
export async function integrationStatus(db: Q, integrationId: number, forUpdate = false) {
  let q = db.selectFrom('integrations').select('status').where('id', '=', integrationId);
  if (forUpdate) q = q.forUpdate();
  return (await q.executeTakeFirstOrThrow()).status;
}

/** Every integration's id, ascending (each module's retention walks them). */
export async function allIntegrationIds(db: Q): Promise<number[]> {
  return (await db.selectFrom('integrations').select('id').orderBy('id').execute()).map((r) => r.id);
}

/** The id the next integration will have: its webhook secret is sealed with it before the row exists. */
export async function nextIntegrationId(trx: Transaction<DB>): Promise<number> {
  const { rows } = await sql<{ id: number }>`select nextval(pg_get_serial_sequence('integrations', 'id'))::int as id`.execute(trx);
  return rows[0].id;
}

/** Integrations with a secret still sealed the old way (`prefix`), locked; a concurrent resealer skips what it finds done. */
export function lockLegacySealedSecrets(trx: Transaction<DB>, prefix: string) {
  return trx
    .selectFrom('integrations')
    .select(['id', 'webhook_secret_enc', 'webhook_secret_prev_enc'])
    .where((eb) => eb.or([eb('webhook_secret_enc', 'like', `${prefix}%`), eb('webhook_secret_prev_enc', 'like', `${prefix}%`)]))
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** The newest integration's sealed webhook secret (the start's check of SECRETS_KEY), or none. */
export function newestSealedSecret(db: Q) {
  return db.selectFrom('integrations').select(['id', 'webhook_secret_enc']).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function setSealedSecrets(trx: Transaction<DB>, id: number, current: string, previous: string | null): Promise<void> {
  await trx.updateTable('integrations').set({ webhook_secret_enc: current, webhook_secret_prev_enc: previous }).where('id', '=', id).execute();
}

export function slugExists(db: Q, slug: string) {
  return db.selectFrom('integrations').select('id').where('slug', '=', slug).executeTakeFirst();
}

/**
 * The integration row and the figures /me reports beside it, in one round trip: the delivery
 * figures and the covered count come from the derived tables in `sources`.
 */
export async function loadIntegrationWithFigures(db: Q, sources: FigureSources, integrationId: number) {
  const row = await db
    .selectFrom('integrations as i')
    .innerJoin('brands as b', 'b.id', 'i.brand_id')
    // `undelivered` is the webhooks module's counter: a count of the pending events grew with them (1.1 s at 5M)
    .innerJoin(sources.delivery.as('s'), 's.integration_id', 'i.id')
    .selectAll('i')
    .select([
      's.undelivered',
      's.cursor as delivery_cursor',
      's.consecutive_failures as delivery_consecutive_failures',
      's.last_success_at as delivery_last_success_at',
      's.last_failure_at as delivery_last_failure_at',
      's.paused_at as delivery_paused_at',
      's.paused_reason as delivery_paused_reason',
      's.next_attempt_at as delivery_next_attempt_at',
    ])
    .select((eb) => [
      'b.name as brand_name',
      eb
        .selectFrom(sources.coverage.as('c'))
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('c.integration_id', '=', integrationId)
        .as('covered'),
    ])
    .where('i.id', '=', integrationId)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    brand_name,
    undelivered,
    delivery_cursor,
    covered,
    delivery_consecutive_failures,
    delivery_last_success_at,
    delivery_last_failure_at,
    delivery_paused_at,
    delivery_paused_reason,
    delivery_next_attempt_at,
    ...integration
  } = row;
  return {
    integration,
    figures: {
      brandName: brand_name,
      undelivered: Number(undelivered ?? 0),
      delivery: {
        consecutive_failures: delivery_consecutive_failures,
        last_success_at: delivery_last_success_at,
        last_failure_at: delivery_last_failure_at,
        paused_at: delivery_paused_at,
        paused_reason: delivery_paused_reason,
        next_attempt_at: delivery_next_attempt_at,
      },
      cursor: delivery_cursor,
      covered: Number(covered ?? 0),
    },
  };
}

/**
 * The integration's status, moved only from one of `from` (false when it was not in one of them):
 * the webhooks module pauses and resumes delivery through it.
 */
export async function setIntegrationStatus(
  uow: UnitOfWork,
  integrationId: number,
  to: 'active' | 'paused',
  from: Array<'active' | 'paused' | 'disabled'>,
  at: Date,
) {
  uow.touched('integrations');
  const row = await uow
    .updateTable('integrations')
    .set({ status: to, updated_at: at })
    .where('id', '=', integrationId)
    .where('status', 'in', from)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
