/** Tables owned by the webhooks module (see its migrations). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface WebhookTables {}
