import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

/** `text` as a LIKE pattern matching it anywhere, its wildcards taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A page of brands, by id, with how many integrations each has. */
export async function selectBrandPage(db: Q, options: { q: string | null; limit: number; offset: number }) {
  let base = db.selectFrom('brands as b');
  if (options.q) base = base.where('b.name', 'ilike', containsPattern(options.q));
  const [rows, total] = await Promise.all([
    base
      .select((eb) => [
        'b.id',
        'b.name',
        'b.plan_active',
        'b.sandbox',
        'b.created_at',
        eb
          .selectFrom('integrations')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('brand_id', '=', 'b.id')
          .as('integrations'),
      ])
      .orderBy('b.id')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export interface IntegrationFilters {
  status: 'active' | 'paused' | 'disabled' | null;
  /** true: paused only; false: not paused. */
  paused: boolean | null;
  brandId: number | null;
  /** Matched against name and slug, case-insensitively. */
  q: string | null;
}

/** A page of integrations, by id, with their brand's name. */
export async function selectIntegrationPage(db: Q, filters: IntegrationFilters, options: { limit: number; offset: number }) {
  let base = db.selectFrom('integrations as i').innerJoin('brands as b', 'b.id', 'i.brand_id');
  if (filters.status) base = base.where('i.status', '=', filters.status);
  if (filters.paused !== null) base = base.where('i.status', filters.paused ? '=' : '!=', 'paused');
  if (filters.brandId !== null) base = base.where('i.brand_id', '=', filters.brandId);
  if (filters.q) {
    const pattern = containsPattern(filters.q);
    base = base.where((eb) => eb.or([eb('i.name', 'ilike', pattern), eb('i.slug', 'ilike', pattern)]));
  }
  const [rows, total] = await Promise.all([
    base
      .select(['i.id', 'i.slug', 'i.name', 'i.status', 'i.brand_id', 'b.name as brand_name', 'i.webhook_url', 'i.last_sequence', 'i.created_at'])
      .orderBy('i.id')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** Every integration's id, slug, status and whether it has a webhook URL (the /metrics gauges and the alerts; integrations number in the thousands at most). */
export function selectIntegrationStates(db: Q) {
  return db
    .selectFrom('integrations')
    .select((eb) => ['id', 'slug', 'status', eb('webhook_url', 'is not', null).as('has_webhook')])
    .orderBy('id')
    .execute();
}
