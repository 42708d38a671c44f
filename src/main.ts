import { ConfigError, loadConfig } from './config.js';

/**
 * The entry point: the configuration is checked before the service's modules load, so a bad
 * setting is reported at once (one line, exit 2); src/server.ts does the rest.
 */
async function main(): Promise<void> {
  // Nothing this process writes (the embedded database, the secrets key) is for other users.
  process.umask(0o077);
  let config;
  try {
    config = loadConfig();
    if (config.alertWebhookUrl) {
      // the SSRF rules of partner webhooks (a small module with no database behind it)
      const { webhookUrlProblem, targetPolicy } = await import('./modules/webhooks/webhooks.url.js');
      const problem = webhookUrlProblem(config.alertWebhookUrl, targetPolicy(config));
      if (problem) throw new ConfigError(`ALERT_WEBHOOK_URL ${problem}`);
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(2);
  }
  const { start } = await import('./server.js');
  await start(config);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`failed to start: ${message.replace(/\s+/g, ' ').trim()}\n`);
  process.exit(1);
});
