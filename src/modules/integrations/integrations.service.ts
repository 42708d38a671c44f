import type { Selectable, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { IntegrationsTable } from './integrations.tables.js';
import { ConfigError } from '../../config.js';
import type { Deps } from '../../deps.js';
import { forgetIntegration } from './integrations.auth.js';
import { fail, notFound, validationFailed } from '../../http/errors.js';
import { randomToken } from '../../lib/ids.js';
import { LEGACY_VERSION, sha256Hex } from '../../lib/secrets.js';
import { EVENT_TYPES } from '../../lib/contract.js';
import {
  findBrand,
  advanceBrandOffset,
  brandIntegrationIds,
  lockLegacySealedSecrets,
  newestSealedSecret,
  nextIntegrationId,
  selectBrandOffsets,
  setSealedSecrets,
  slugExists,
} from './integrations.sql.js';
import { requireAdmin, type StaffIdentity } from './staff-tokens.service.js';
import type { Clock } from '../../lib/clock.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

type IntegrationRow = Selectable<IntegrationsTable>;
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const newApiKey = () => randomToken('dlk_', 40);
export const newWebhookSecret = () => randomToken('whsec_', 32);

function brandView(row: { id: number; name: string; plan_active: boolean; sandbox: boolean }) {
  return { id: row.id, name: row.name, plan: { active: row.plan_active }, sandbox: row.sandbox };
}

const SANDBOX_FLAG = "create a sandbox brand or change a brand's sandbox flag";

/**
 * A sandbox brand's integrations act as its host (bookings, cancellations, archives), so only an
 * admin token may set the flag, and every setting is logged as a mint is.
 */
function sandboxFlagSet(deps: Deps, actor: StaffIdentity | undefined, brandId: number, sandbox: boolean): void {
  deps.log.info({ staff_token_id: actor?.id ?? null, brand_id: brandId, sandbox }, 'brand sandbox flag set');
}

/** A new brand; `actor` is the staff token of the request (absent for the service's own calls). */
export async function createBrand(deps: Deps, name: string, sandbox = false, actor?: StaffIdentity) {
  if (sandbox && actor) requireAdmin(actor, SANDBOX_FLAG);
  const now = deps.clock.now();
  const row = await deps.db
    .insertInto('brands')
    .values({ name, plan_active: true, sandbox, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (sandbox) sandboxFlagSet(deps, actor, row.id, true);
  return brandView(row);
}

export async function getBrand(deps: Deps, brandId: number) {
  const row = await findBrand(deps.db, brandId);
  if (!row) throw notFound('No such brand.');
  return brandView(row);
}

/** Staff PATCH /brands/{id}: name and sandbox flag; absent fields stay as they are. */
export async function updateBrand(deps: Deps, actor: StaffIdentity, brandId: number, input: { name?: string; sandbox?: boolean }) {
  if (input.sandbox !== undefined) requireAdmin(actor, SANDBOX_FLAG);
  const row = await deps.db
    .updateTable('brands')
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.sandbox !== undefined ? { sandbox: input.sandbox } : {}),
      updated_at: deps.clock.now(),
    })
    .where('id', '=', brandId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('No such brand.');
  if (input.sandbox !== undefined) sandboxFlagSet(deps, actor, row.id, input.sandbox);
  return brandView(row);
}

export async function setBrandPlan(deps: Deps, brandId: number, active: boolean) {
  const row = await deps.db
    .updateTable('brands')
    .set({ plan_active: active, updated_at: deps.clock.now() })
    .where('id', '=', brandId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('No such brand.');
  deps.state.changes.wrote(['brands']);
  return brandView(row);
}

export interface WebhookInput {
  url?: string | null;
  event_types?: string[];
  timeout_seconds?: number;
}

function slugFromName(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56);
  return base || 'integration';
}

export interface CreateIntegrationInput {
  brand_id: number;
  name: string;
  slug?: string;
  webhook?: WebhookInput;
  horizon_days?: number;
}

export const slugTaken = (slug: string) => fail('SLUG_EXISTS', `The slug "${slug}" is already taken.`, { slug: [`"${slug}" is already taken`] });

/** The slug a new integration takes: the one asked for (refused when taken), or a free one derived from its name; 422 when the brand does not exist. */
export async function newIntegrationSlug(deps: Pick<Deps, 'db'>, input: CreateIntegrationInput): Promise<string> {
  if (!(await findBrand(deps.db, input.brand_id))) throw validationFailed({ brand_id: ['does not name an existing brand'] });
  if (input.slug) {
    if (await slugExists(deps.db, input.slug)) throw slugTaken(input.slug);
    return input.slug;
  }
  const base = slugFromName(input.name);
  let slug = base;
  for (let n = 2; await slugExists(deps.db, slug); n++) slug = `${base}-${n}`;
  return slug;
}

/**
 * Inserts a new integration with fresh credentials in `trx`, where the caller writes what belongs
 * beside it; the credentials are answered in plain text once. A slug taken meanwhile fails with
 * a unique violation (see `slugTaken`).
 */
export async function insertIntegration(deps: Pick<Deps, 'clock' | 'secrets'>, trx: Transaction<DB>, input: CreateIntegrationInput, slug: string) {
  const apiKey = newApiKey();
  const webhookSecret = newWebhookSecret();
  const now = deps.clock.now();
  const id = await nextIntegrationId(trx);
  await trx
    .insertInto('integrations')
    .values({
      id,
      brand_id: input.brand_id,
      slug,
      name: input.name,
      api_key_hash: sha256Hex(apiKey),
      webhook_url: input.webhook?.url ?? null,
      webhook_event_types: input.webhook?.event_types ?? [...EVENT_TYPES],
      webhook_timeout_seconds: input.webhook?.timeout_seconds ?? 10,
      webhook_secret_enc: deps.secrets.encrypt(webhookSecret, id),
      horizon_days: input.horizon_days ?? 365,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { id, apiKey, webhookSecret };
}

/** Reads every brand's clock offset into this process's clock (at start, after a move, and on a timer for other processes' moves). */
export async function reloadBrandClocks(deps: Pick<Deps, 'db' | 'clock'>): Promise<boolean> {
  const offsets = await selectBrandOffsets(deps.db);
  // Offsets only grow, so a change is a brand that moved or an integration new to a moved brand.
  const changed = offsets.some(
    (o) =>
      deps.clock.brandOffsetSeconds(o.brandId) !== o.offsetSeconds ||
      o.integrationIds.some((id) => deps.clock.ofIntegration(id) !== deps.clock.ofBrand(o.brandId)),
  );
  deps.clock.setBrandOffsets(offsets);
  return changed;
}

/**
 * Moves a sandbox brand's clock forward (only its own data's time rules read it; src/lib/clock.ts)
 * and answers the brand's clock. The caller has checked that the brand is a sandbox.
 */
export async function advanceBrandClock(deps: Deps, brandId: number, seconds: number): Promise<{ clock: Clock; integrationIds: number[] }> {
  await advanceBrandOffset(deps.db, brandId, seconds);
  await reloadBrandClocks(deps);
  deps.signals.emit('clock');
  return { clock: deps.clock.ofBrand(brandId), integrationIds: await brandIntegrationIds(deps.db, brandId) };
}

export interface UpdateIntegrationInput {
  name?: string;
  webhook?: WebhookInput;
  horizon_days?: number;
  status?: 'active' | 'disabled';
}

/** Writes the fields of `input` that are set (a status only when disabling: re-enabling is delivery's resume). */
/** Sent ahead in the caller's unit of work. */
export function updateIntegrationRow(uow: UnitOfWork, integrationId: number, input: UpdateIntegrationInput, now: Date): void {
  const changes: Partial<Record<keyof IntegrationRow, unknown>> = { updated_at: now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.horizon_days !== undefined) changes.horizon_days = input.horizon_days;
  if (input.webhook?.url !== undefined) changes.webhook_url = input.webhook.url;
  if (input.webhook?.event_types !== undefined) changes.webhook_event_types = input.webhook.event_types;
  if (input.webhook?.timeout_seconds !== undefined) changes.webhook_timeout_seconds = input.webhook.timeout_seconds;
  if (input.status === 'disabled') changes.status = 'disabled';
  uow.send(
    uow
      .updateTable('integrations')
      .set(changes as never)
      .where('id', '=', integrationId),
  );
  uow.touched('integrations');
}

export async function rotateApiKey(deps: Deps, integrationId: number) {
  const apiKey = newApiKey();
  const result = await deps.db
    .updateTable('integrations')
    .set({ api_key_hash: sha256Hex(apiKey), updated_at: deps.clock.now() })
    .where('id', '=', integrationId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw notFound('No such integration.');
  await forgetIntegration(deps, integrationId);
  return { api_key: apiKey };
}

/**
 * The previous secret keeps verifying for 24 hours. A second rotation replaces it with the secret
 * being retired then, so the original one ends at once.
 */
export async function rotateWebhookSecret(deps: Deps, integrationId: number) {
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const updated = await deps.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('integrations').select(['webhook_secret_enc']).where('id', '=', integrationId).forUpdate().executeTakeFirst();
    if (!row) return false;
    await trx
      .updateTable('integrations')
      .set({
        webhook_secret_enc: deps.secrets.encrypt(secret, integrationId),
        webhook_secret_prev_enc: row.webhook_secret_enc,
        webhook_secret_prev_expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS),
        updated_at: now,
      })
      .where('id', '=', integrationId)
      .execute();
    return true;
  });
  if (!updated) throw notFound('No such integration.');
  return { webhook_secret: secret };
}

/**
 * The secrets that sign a delivery to the integration now (see liveWebhookSecrets), for the
 * webhooks worker; none when the integration is gone.
 */
export async function webhookSigningSecrets(deps: Pick<Deps, 'db' | 'secrets' | 'clock'>, integrationId: number): Promise<string[]> {
  const row = await deps.db
    .selectFrom('integrations')
    .select(['id', 'webhook_secret_enc', 'webhook_secret_prev_enc', 'webhook_secret_prev_expires_at'])
    .where('id', '=', integrationId)
    .executeTakeFirst();
  return row ? liveWebhookSecrets(deps, row) : [];
}

/** The secrets that sign a delivery now: the current one first, then the previous one while it lasts. */
export function liveWebhookSecrets(
  deps: Pick<Deps, 'secrets' | 'clock'>,
  row: Pick<IntegrationRow, 'id' | 'webhook_secret_enc' | 'webhook_secret_prev_enc' | 'webhook_secret_prev_expires_at'>,
): string[] {
  const secrets = [deps.secrets.decrypt(row.webhook_secret_enc, row.id)];
  if (row.webhook_secret_prev_enc && row.webhook_secret_prev_expires_at && row.webhook_secret_prev_expires_at.getTime() > deps.clock.nowMs()) {
    secrets.push(deps.secrets.decrypt(row.webhook_secret_prev_enc, row.id));
  }
  return secrets;
}

/**
 * Seals again, with the integration id as associated data, every webhook secret an earlier version
 * sealed without it (`v1.`), in one transaction; run at every start, after the migrations (a
 * migration has no key). Returns how many integrations it changed. Processes starting together
 * lock the same rows: the second finds them done.
 */
export async function resealWebhookSecrets(deps: Pick<Deps, 'db' | 'secrets'>): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const rows = await lockLegacySealedSecrets(trx, `${LEGACY_VERSION}.`);
    const reseal = (sealed: string, id: number) => {
      if (!sealed.startsWith(`${LEGACY_VERSION}.`)) return sealed;
      let plain: string;
      try {
        plain = deps.secrets.openLegacy(sealed);
      } catch {
        throw new ConfigError(`SECRETS_KEY does not open the stored webhook secret of integration ${id}: start with the key the secrets were sealed with`);
      }
      return deps.secrets.encrypt(plain, id);
    };
    for (const row of rows) {
      await setSealedSecrets(
        trx,
        row.id,
        reseal(row.webhook_secret_enc, row.id),
        row.webhook_secret_prev_enc === null ? null : reseal(row.webhook_secret_prev_enc, row.id),
      );
    }
    return rows.length;
  });
}

/**
 * Opens one stored webhook secret (the newest integration's) with SECRETS_KEY, at every start: a
 * wrong key stops the start rather than leaving a node that is ready yet fails every delivery.
 */
export async function checkSecretsKey(deps: Pick<Deps, 'db' | 'secrets'>): Promise<void> {
  const row = await newestSealedSecret(deps.db);
  if (!row) return;
  try {
    deps.secrets.decrypt(row.webhook_secret_enc, row.id);
  } catch {
    throw new ConfigError(`SECRETS_KEY does not open the stored webhook secret of integration ${row.id}: start with the key the secrets were sealed with`);
  }
}

// Kept where main and the tests have always found it.
export { ensureStaffToken } from './staff-tokens.service.js';
