import { sql, type Kysely } from 'kysely';

// Staff credentials that verified from a source address (src/http/staff-lockout.ts): while that
// address is locked out for failed authentications, a credential that verified from it within the
// last 24 hours is still evaluated; any other waits for the lockout to end. Shared by every process
// (a request may reach any of them). The credential is the SHA-256 of the Authorization header; the
// address is the lockout's bucket (an IPv4 address or an IPv6 /64).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table staff_auth_known (
      address text not null,
      credential_hash text not null,
      verified_at timestamptz not null,
      primary key (address, credential_hash)
    );
    create index staff_auth_known_verified on staff_auth_known (verified_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table staff_auth_known`.execute(db);
}
