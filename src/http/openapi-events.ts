// The event side of the OpenAPI document: the envelope, each kind's data, the union a receiver
// gets, and the OpenAPI 3.1 `webhooks` (what the service POSTs to a partner's URL).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** Event envelope, each kind's data, and the union a receiver gets. */
export function addEventSchemas(schemas: Record<string, Json>): void {
  const nullableString = { type: ['string', 'null'] };
  schemas.EventEnvelope = {
    type: 'object',
    description: 'Members every event shares, delivered and replayed alike. Apply an event only when its sequence is above the last applied for its scope.',
    required: ['id', 'type', 'sequence', 'origin', 'version', 'created_at', 'integration', 'property', 'window', 'data'],
    properties: {
      id: { type: 'string', description: 'ULID, unique for the life of the integration (not a sequence)' },
      type: { type: 'string', description: 'The event kind' },
      sequence: { type: 'integer', minimum: 1, description: 'Gap-free per integration' },
      origin: {
        type: 'string',
        enum: ['partner', 'doorloom'],
        description: '`partner` for the integration’s own writes (an echo), `doorloom` for host and system changes',
      },
      version: { type: 'string', examples: ['2026-09'] },
      created_at: { type: 'string', format: 'date-time', description: 'ISO-8601 with +05:30' },
      integration: { type: 'object', required: ['id', 'slug'], properties: { id: { type: 'integer' }, slug: { type: 'string' } } },
      property: { anyOf: [schemaRef('PropertyReference'), { type: 'null' }], description: 'The property the event is about; null for integration-wide events' },
      window: {
        anyOf: [schemaRef('DateWindow'), { type: 'null' }],
        description: 'Nights a windowed kind covers, inclusive, never more than one calendar month',
      },
      data: { description: 'The kind’s payload' },
    },
  };
  const kind = (type: string, data: JsonObject, description: string): JsonObject => ({
    description,
    allOf: [schemaRef('EventEnvelope'), { type: 'object', required: ['type', 'data'], properties: { type: { type: 'string', const: type }, data } }],
  });
  schemas.InventoryChangedData = {
    type: 'object',
    required: ['units'],
    properties: {
      units: {
        type: 'array',
        description: 'Every unit (active and inactive), then a `deleted: true` entry per retired alias',
        items: {
          anyOf: [
            schemaRef('Unit'),
            {
              type: 'object',
              required: ['inventory_id', 'external_unit_id', 'deleted'],
              properties: { inventory_id: { type: 'integer' }, external_unit_id: nullableString, deleted: { type: 'boolean', const: true } },
            },
          ],
        },
      },
    },
  };
  schemas.PropertyChangedData = { type: 'object', required: ['property'], properties: { property: schemaRef('PropertyDetail') } };
  schemas.BookingChangedData = { type: 'object', required: ['booking'], properties: { booking: schemaRef('Booking') } };
  schemas.AvailabilityChangedEvent = kind(
    'availability.changed',
    schemaRef('AvailabilityPayload'),
    'Availability of a property for a window of nights (full state, never a delta)',
  );
  schemas.RatesChangedEvent = kind('rates.changed', schemaRef('RatesPayload'), 'Rates of a property for a window of nights');
  schemas.RestrictionsChangedEvent = kind('restrictions.changed', schemaRef('RestrictionsPayload'), 'Restrictions of a property for a window of nights');
  schemas.InventoryChangedEvent = kind('inventory.changed', schemaRef('InventoryChangedData'), 'The units of a property');
  schemas.PropertyChangedEvent = kind('property.changed', schemaRef('PropertyChangedData'), 'A property’s block and input groups');
  schemas.BookingChangedEvent = kind('booking.changed', schemaRef('BookingChangedData'), 'A booking, after any change by anyone');
  schemas.PingEvent = {
    description: 'Connectivity check sent to a paused integration; a 2xx resumes delivery. No sequence.',
    type: 'object',
    required: ['id', 'type', 'sequence', 'origin', 'version', 'created_at', 'integration', 'property', 'window', 'data'],
    properties: {
      id: { type: 'string' },
      type: { type: 'string', const: 'ping' },
      sequence: { type: 'null' },
      origin: { type: 'string', const: 'doorloom' },
      version: { type: 'string' },
      created_at: { type: 'string' },
      integration: { type: 'object', required: ['id', 'slug'], properties: { id: { type: 'integer' }, slug: { type: 'string' } } },
      property: { type: 'null' },
      window: { type: 'null' },
      data: { type: 'object', additionalProperties: false },
    },
  };
  schemas.Event = {
    description: 'Any event. New kinds may be added within a version: receivers ignore kinds they do not know.',
    oneOf: EVENT_SCHEMAS.map(([, name]) => schemaRef(name)),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_SCHEMAS.map(([type, name]) => [type, `#/components/schemas/${name}`])) },
  };
}

const EVENT_SCHEMAS: Array<[string, string]> = [
  ['availability.changed', 'AvailabilityChangedEvent'],
  ['rates.changed', 'RatesChangedEvent'],
  ['restrictions.changed', 'RestrictionsChangedEvent'],
  ['inventory.changed', 'InventoryChangedEvent'],
  ['property.changed', 'PropertyChangedEvent'],
  ['booking.changed', 'BookingChangedEvent'],
  ['ping', 'PingEvent'],
];

/** OpenAPI 3.1 `webhooks`: what the service POSTs to the partner's URL, one entry per kind. */
export function webhooks(): JsonObject {
  const header = (name: string, description: string, example?: string): JsonObject => ({
    in: 'header',
    name,
    required: true,
    description,
    schema: { type: 'string', ...(example ? { examples: [example] } : {}) },
  });
  const parameters = [
    header(
      'X-Service-Signature',
      '`t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401.',
      't=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
    ),
    header('X-Service-Integration', 'The integration’s slug.'),
    header('X-Service-Event-Id', 'The event id (ULID).'),
    header('webhook-id', 'Standard Webhooks: the event id.'),
    header('webhook-timestamp', 'Standard Webhooks: `t`, unix seconds.'),
    header(
      'webhook-signature',
      'Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`.',
    ),
  ];
  const out: JsonObject = {};
  for (const [type, name] of EVENT_SCHEMAS) {
    const camel = type.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase());
    out[type] = {
      post: {
        operationId: `${camel}Webhook`,
        summary: type === 'ping' ? 'Connectivity ping to a paused integration' : `Delivery of ${type}`,
        description:
          'Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.',
        tags: ['events'],
        security: [],
        parameters,
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef(name) } } },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery.' },
          '401': { description: 'The signature did not verify; the delivery is retried on the ladder.' },
        },
      },
    };
  }
  return out;
}
