import { sql, type Kysely } from 'kysely';

// Staff tokens get a scope and an optional expiry. `admin` may do everything, minting and revoking
// staff tokens included; `operator` everything else. Tokens that exist already keep the full power
// they had (admin); the staff API mints operator tokens unless asked otherwise. A token past its
// `expires_at` authenticates no more.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table staff_tokens
      add column scope text not null default 'admin' check (scope in ('admin', 'operator')),
      add column expires_at timestamptz;
    alter table staff_tokens alter column scope drop default;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table staff_tokens drop column scope, drop column expires_at`.execute(db);
}
