import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData, sendJson } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { queryCheckedByHand } from '../../http/validation.js';
import type { CalendarKind } from './calendar.payloads.js';
import {
  AvailabilityData,
  CalendarBody,
  HostEditView,
  MealPlansBody,
  PropertyIdParams,
  RatesBody,
  RatesData,
  RestrictionsBody,
  RestrictionsData,
  SnapshotParams,
  SnapshotQuery,
  TaxBody,
  snapshotView,
} from './calendar.schemas.js';
import { setCalendar, setMealPlans, setRateOverrides, setRestrictions, setTax } from './calendar.service.js';
import { readSnapshot, snapshotBody } from './calendar.snapshots.js';

const SNAPSHOTS: Array<{ kind: CalendarKind; data: TSchema; summary: string; message: string }> = [
  { kind: 'availability', data: AvailabilityData, summary: 'Availability snapshot of a property for a window of nights', message: 'Availability retrieved.' },
  { kind: 'rates', data: RatesData, summary: 'Rates snapshot of a property for a window of nights', message: 'Rates retrieved.' },
  { kind: 'restrictions', data: RestrictionsData, summary: 'Restrictions snapshot of a property for a window of nights', message: 'Restrictions retrieved.' },
];

/** The three snapshots on the integrations API: GET /properties/{property}/availability|rates|restrictions. */
export function registerCalendarRoutes(api: FastifyInstance, deps: Deps): void {
  for (const snapshot of SNAPSHOTS) {
    api.get<{ Params: Static<typeof SnapshotParams>; Querystring: Record<string, unknown> }>(
      `/properties/:property/${snapshot.kind}`,
      {
        // Checked by hand (readSnapshot) so every window refusal is keyed as the contract says.
        validatorCompiler: queryCheckedByHand,
        schema: {
          summary: snapshot.summary,
          description:
            'Window of at most 92 nights, `to` at most 730 days ahead of today. `data.sequence` is the watermark: set the cursor for this property and type to it; events with a higher sequence apply on top.',
          tags: ['calendar'],
          params: SnapshotParams,
          querystring: SnapshotQuery,
          response: { 200: envelope(snapshotView(snapshot.data)), ...errorResponses(401, 403, 404, 422, 429) },
        },
      },
      async (request, reply) => {
        const read = await readSnapshot(deps, request.integration.id, request.params.property, snapshot.kind, request.query);
        return sendJson(reply, 200, snapshotBody(snapshot.message, read));
      },
    );
  }
}

/** Host calendar edits on the staff API (decisions §9); each emits the matching *.changed events. */
export function registerStaffCalendarRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];
  const responses = { 200: envelope(HostEditView), ...errorResponses(401, 403, 404, 422) };
  const id = (params: { id: string }) => parseId(params.id, 'property');

  staff.put<{ Params: Static<typeof PropertyIdParams>; Body: Static<typeof CalendarBody> }>(
    '/properties/:id/calendar',
    {
      schema: {
        summary: 'Host: block nights (property-wide or chosen units) and set units caps',
        tags,
        params: PropertyIdParams,
        body: CalendarBody,
        response: responses,
      },
    },
    async (request, reply) => sendData(reply, 200, 'Calendar updated.', await setCalendar(deps, id(request.params), request.body)),
  );

  staff.put<{ Params: Static<typeof PropertyIdParams>; Body: Static<typeof RatesBody> }>(
    '/properties/:id/rates',
    { schema: { summary: 'Host: per-night rate overrides, or clear them', tags, params: PropertyIdParams, body: RatesBody, response: responses } },
    async (request, reply) => sendData(reply, 200, 'Rates updated.', await setRateOverrides(deps, id(request.params), request.body)),
  );

  staff.put<{ Params: Static<typeof PropertyIdParams>; Body: Static<typeof RestrictionsBody> }>(
    '/properties/:id/restrictions',
    { schema: { summary: 'Host: booking rules and per-night restrictions', tags, params: PropertyIdParams, body: RestrictionsBody, response: responses } },
    async (request, reply) => sendData(reply, 200, 'Restrictions updated.', await setRestrictions(deps, id(request.params), request.body)),
  );

  staff.put<{ Params: Static<typeof PropertyIdParams>; Body: Static<typeof MealPlansBody> }>(
    '/properties/:id/meal-plans',
    {
      schema: { summary: 'Host: the meal plans offered (EP is always offered at 0)', tags, params: PropertyIdParams, body: MealPlansBody, response: responses },
    },
    async (request, reply) => sendData(reply, 200, 'Meal plans updated.', await setMealPlans(deps, id(request.params), request.body)),
  );

  staff.put<{ Params: Static<typeof PropertyIdParams>; Body: Static<typeof TaxBody> }>(
    '/properties/:id/tax',
    { schema: { summary: 'Host: GST flags of the rates', tags, params: PropertyIdParams, body: TaxBody, response: responses } },
    async (request, reply) => sendData(reply, 200, 'Tax settings updated.', await setTax(deps, id(request.params), request.body)),
  );
}
