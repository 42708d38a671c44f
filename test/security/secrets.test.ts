import { createCipheriv, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { createSecretBox, parseSecretsKey } from '../../src/lib/secrets.js';
import { liveWebhookSecrets, resealWebhookSecrets, webhookSigningSecrets } from '../../src/modules/integrations/integrations.service.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

/** Webhook secrets at rest: AES-256-GCM bound to the integration id, a full 16-byte tag, old rows sealed again. */

/** A secret sealed as earlier versions did: `v1`, no associated data. */
function sealV1(key: Buffer, plain: string, tagLength = 16): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagLength });
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

describe('the secret box', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);

  it('opens a secret only for the integration it was sealed for', () => {
    const sealed = box.encrypt('whsec_moving', 7);
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(box.decrypt(sealed, 7)).toBe('whsec_moving');
    expect(() => box.decrypt(sealed, 8)).toThrow();
    expect(() => box.decrypt(sealed, 70)).toThrow();
  });

  it('refuses a truncated or lengthened tag, whatever it says', () => {
    const sealed = box.encrypt('whsec_tagged', 1);
    const [v, iv, tag, body] = sealed.split('.');
    const full = Buffer.from(tag, 'base64url');
    expect(full).toHaveLength(16);
    for (const bytes of [4, 8, 12, 15]) {
      expect(() => box.decrypt([v, iv, full.subarray(0, bytes).toString('base64url'), body].join('.'), 1), `${bytes}-byte tag`).toThrow();
    }
    expect(() => box.decrypt([v, iv, Buffer.concat([full, Buffer.alloc(1)]).toString('base64url'), body].join('.'), 1)).toThrow();
    expect(() => box.decrypt([v, iv, Buffer.alloc(16).toString('base64url'), body].join('.'), 1)).toThrow();
    expect(() => box.decrypt(`${sealed}.extra`, 1)).toThrow();
  });

  it('does not open the old unbound form: that is only read to be sealed again', () => {
    const old = sealV1(key, 'whsec_old');
    expect(() => box.decrypt(old, 1)).toThrow();
    expect(box.openLegacy(old)).toBe('whsec_old');
    // the old form with a short tag is refused as well
    expect(() => box.openLegacy(sealV1(key, 'whsec_old', 4))).toThrow();
  });
});

describe('stored secrets', () => {
  let ctx: TestContext;
  let key: Buffer;
  beforeAll(async () => {
    ctx = await createTestContext();
    key = parseSecretsKey(ctx.deps.config.secretsKey!);
  });
  afterAll(() => ctx?.close());

  const readRow = (id: number) =>
    ctx.deps.db
      .selectFrom('integrations')
      .select(['id', 'webhook_secret_enc', 'webhook_secret_prev_enc', 'webhook_secret_prev_expires_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('a ciphertext copied to another integration row does not open there', async () => {
    const a = await ctx.createIntegration();
    const b = await ctx.createIntegration();
    expect(await webhookSigningSecrets(ctx.deps, a.id)).toEqual([a.webhookSecret]);
    const stolen = (await readRow(a.id)).webhook_secret_enc;
    await ctx.deps.db.updateTable('integrations').set({ webhook_secret_enc: stolen }).where('id', '=', b.id).execute();
    await expect(webhookSigningSecrets(ctx.deps, b.id)).rejects.toThrow();
  });

  it('at start, secrets sealed the old way (current and previous) are sealed again with their integration id, once', async () => {
    const first = await ctx.createIntegration();
    const second = await ctx.createIntegration();
    const rotated = (await ctx.staff('POST', `/integrations/${second.id}/webhook-secret/rotate`)).json().data.webhook_secret as string;
    // as an earlier version left them
    await ctx.deps.db
      .updateTable('integrations')
      .set({ webhook_secret_enc: sealV1(key, first.webhookSecret) })
      .where('id', '=', first.id)
      .execute();
    await ctx.deps.db
      .updateTable('integrations')
      .set({ webhook_secret_enc: sealV1(key, rotated), webhook_secret_prev_enc: sealV1(key, second.webhookSecret) })
      .where('id', '=', second.id)
      .execute();
    expect(() =>
      liveWebhookSecrets(ctx.deps, { id: first.id, webhook_secret_enc: sealV1(key, 'x'), webhook_secret_prev_enc: null, webhook_secret_prev_expires_at: null }),
    ).toThrow();

    // two processes starting together: the rows are done once
    const counts = await Promise.all([resealWebhookSecrets(ctx.deps), resealWebhookSecrets(ctx.deps)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
    for (const id of [first.id, second.id]) {
      const row = await readRow(id);
      expect(row.webhook_secret_enc.startsWith('v2.')).toBe(true);
      if (row.webhook_secret_prev_enc) expect(row.webhook_secret_prev_enc.startsWith('v2.')).toBe(true);
    }
    expect(await webhookSigningSecrets(ctx.deps, first.id)).toEqual([first.webhookSecret]);
    expect(await webhookSigningSecrets(ctx.deps, second.id)).toEqual([rotated, second.webhookSecret]);
    expect(await resealWebhookSecrets(ctx.deps)).toBe(0);
  });

  it('an old secret that the configured key cannot open stops the start with a configuration error', async () => {
    const integration = await ctx.createIntegration();
    await ctx.deps.db
      .updateTable('integrations')
      .set({ webhook_secret_enc: sealV1(randomBytes(32), 'whsec_other_key') })
      .where('id', '=', integration.id)
      .execute();
    await expect(resealWebhookSecrets(ctx.deps)).rejects.toThrow(ConfigError);
    await expect(resealWebhookSecrets(ctx.deps)).rejects.toThrow(`SECRETS_KEY does not open the stored webhook secret of integration ${integration.id}`);
    // nothing was changed
    expect((await readRow(integration.id)).webhook_secret_enc.startsWith('v1.')).toBe(true);
  });
});
