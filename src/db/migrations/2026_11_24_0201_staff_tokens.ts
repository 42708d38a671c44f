import { sql, type Kysely } from 'kysely';

// Staff tokens get a name, a kind and a life cycle (src/modules/integrations/staff-tokens.ts).
// `bootstrap`: the token of STAFF_TOKEN, or the one generated at the first start; `named`: minted
// through the staff API. A revoked token keeps its row (when it was revoked stays on record) and
// never authenticates again.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table staff_tokens
      add column name text not null default 'bootstrap',
      add column kind text not null default 'bootstrap' check (kind in ('bootstrap', 'named')),
      add column last_used_at timestamptz,
      add column revoked_at timestamptz;
    alter table staff_tokens alter column name drop default, alter column kind drop default;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table staff_tokens drop column name, drop column kind, drop column last_used_at, drop column revoked_at`.execute(db);
}
