/** Tables of the cross-cutting HTTP parts (idempotency, rate limits). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface HttpTables {}
