import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { RegisteredRoute } from '../helpers/routes.js';

/**
 * The request generator of the fuzz test: plans of requests (plain data, so fast-check can print a
 * failing one), turned into concrete requests against the live world only when sent (ids, dates
 * relative to the service clock's today, fresh idempotency keys).
 */

// ---------------------------------------------------------------------------------------------
// Plans

export type ParamPlan = { kind: 'pool'; pick: number } | { kind: 'recent'; pick: number } | { kind: 'text'; text: string } | { kind: 'raw'; text: string };

export type BodyPlan =
  | { kind: 'none' }
  | { kind: 'valid' }
  | { kind: 'mutate'; edits: Array<{ at: number; op: 'edge' | 'delete' | 'set' | 'wrap' | 'stringify' | 'add'; edge: number; key: string; value: unknown }> }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; text: string };

export interface RequestPlan {
  route: number;
  /** Another method than the route's (405, 404, HEAD). */
  method: string | null;
  params: ParamPlan[];
  query: { pairs: Array<[string, string]>; window: { from: number; nights: number } | null; raw: string | null };
  auth: string;
  contentType: string | null;
  idempotency: string;
  ifMatch: string | null;
  body: BodyPlan;
  headers: Array<[string, string]>;
}

/** Strings that have broken parsers, validators and databases before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x1F',
  '2147483647',
  '2147483648',
  '9223372036854775808',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  'null',
  'true',
  'undefined',
  '[]',
  '{}',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '9999-12-31',
  '275760-09-13',
  '2026-1-1',
  '2026-12-01T25:61:61+05:30',
  '1970-01-01T00:00:00Z',
  '\u0000',
  'a\u0000b',
  '\uFEFF',
  '\uD800',
  '😀',
  'ünïcödé',
  'x'.repeat(129),
  'x'.repeat(2001),
  '%',
  '%00',
  '../..',
  '<script>alert(1)</script>',
  "' or '1'='1",
  '"; drop table bookings; --',
  '$1',
  '\\',
  '\n',
  'availability,rates',
  'availability.changed,bogus',
  'pending',
  'archived',
];

export const NASTY_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  1.5,
  -0.001,
  50,
  51,
  128,
  500,
  501,
  2000,
  2147483647,
  2147483648,
  -2147483649,
  Number.MAX_SAFE_INTEGER,
  1e21,
  -1e21,
  1e308,
  5e-324,
  0.004999,
  9999999999.995,
  [],
  [null],
  [[[]]],
  {},
  { $gt: '' },
  { length: 1 },
  ...NASTY_STRINGS,
];

const CAP_LENGTHS = [1, 7, 8, 20, 21, 64, 65, 100, 101, 127, 128, 129, 255, 256, 500, 501, 2000, 2001];

/** Edge values of the same type as the value they replace (`edge` edits): the limits of each type. */
export const NUMBER_EDGES = [
  0, -1, 1, 1.5, 0.005, -0.001, 20, 21, 25, 26, 50, 51, 200, 201, 500, 501, 730, 731, 2147483647, 2147483648, -2147483649,
  // eslint-disable-next-line no-loss-of-precision -- 2^53 + 1 rounds to 2^53, the first integer past the safe ones: the edge wanted.
  9007199254740993, 1e21, -1e21, 1e308, 5e-324, 9999999999.99, 10000000000, 99999999999999,
];
const STRING_EDGES = [
  ...CAP_LENGTHS.map((n) => 'x'.repeat(n)),
  '',
  ' ',
  '\u0000',
  '😀',
  'a b',
  'a/b',
  '@day:-1',
  '@day:0',
  '@day:729',
  '@day:730',
  '@day:731',
  '9999-12-31',
  '0001-01-01',
  '2028-02-29',
  '2027-02-29',
  '2026-12-01T10:00:00+05:30',
  '1e3',
  '2147483648',
];
const NUMBER_STRINGS = [
  '99999999999999999999999',
  '9223372036854775808',
  '9007199254740993',
  '2147483648',
  '9999999999999999',
  '-1',
  '0',
  '1e3',
  '1.5',
  '1e400',
  '0x10',
];

/** The `n`th edge of a value's own type. */
export function edgeOf(node: unknown, n: number): unknown {
  const at = <T>(list: readonly T[]) => list[n % list.length];
  if (typeof node === 'number') return at(NUMBER_EDGES);
  if (typeof node === 'string') return at(STRING_EDGES);
  if (typeof node === 'boolean') return at([null, !node, 'true', 1, 0]);
  if (node === null) return at([0, '', false, {}, []]);
  if (Array.isArray(node)) {
    const first = node[0] ?? null;
    return at([[], [first, first], [null], ...[21, 26, 51, 201, 501].map((len) => Array(len).fill(first))]);
  }
  return at([{}, null, [], 'x', [node]]);
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; foo=bar',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/octet-stream',
  '*/*',
  'json',
  '',
];

export const AUTH_FORMS = [
  'valid',
  'other-brand',
  'same-brand',
  'disabled',
  'staff',
  'none',
  'lowercase-bearer',
  'basic',
  'double-space',
  'trailing-garbage',
  'unknown-key',
  'empty-bearer',
  'token-only',
  'integration-on-staff',
];

const IDEMPOTENCY_FORMS = ['reuse', 'fixed', 'none', 'short', 'long', 'spaces', 'non-ascii', 'empty'];

const IF_MATCH = ['"1"', '1', 'W/"2"', '*', '"999"', 'garbage', '', '"', ',,,', '"1", "2"', '"-1"', '"1e3"', '  "1"  '];

export const QUERY_NAMES = [
  'page',
  'per_page',
  'status',
  'updated_since',
  'property_id',
  'check_in_from',
  'check_in_to',
  'after_sequence',
  'limit',
  'types',
  'from',
  'to',
  'after',
  'api_key',
];

const RAW_PATH_SEGMENTS = [
  '%E0%A4%A',
  '%00',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  'a%20b',
  '%',
  '%zz',
  '%F0%9F%98%80',
  '%C0%AE',
  'x'.repeat(501),
  '%252F',
  '+',
  ';',
  '*',
];

const RAW_QUERIES = [
  'a[]=1&a[]=2',
  'page[x]=1',
  '&&&',
  '=',
  '%',
  '%zz=1',
  'limit=1&limit=2',
  'per_page=%00',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  'types=' + 'a,'.repeat(500),
];

export const RAW_BODIES = [
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '1',
  'true',
  '{"a":1}{"b":2}',
  '\uFEFF{}',
  '{"name":"a","name":"b"}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"units":' + '['.repeat(31) + ']'.repeat(31) + '}',
  '{"units":' + '['.repeat(40) + ']'.repeat(40) + '}',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  '{"a":1e999}',
  '{"a":-0}',
  '{"a":0.1e-400}',
  "{'a':1}",
  '{a:1}',
  '{"a":NaN}',
  '\u0000',
  ' ',
  '\n\n',
];

const weighted = <T>(entries: Array<[number, fc.Arbitrary<T>]>) => fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const pick = <T>(values: readonly T[]) => fc.noBias(fc.integer({ min: 0, max: values.length - 1 })).map((i) => values[i]);
const anyIndex = fc.noBias(fc.nat({ max: 1_000_000 }));

const valueArb: fc.Arbitrary<unknown> = weighted<unknown>([
  [6, pick(NASTY_VALUES)],
  [2, pick(CAP_LENGTHS).map((n) => 'x'.repeat(n))],
  [2, fc.integer({ min: -5, max: 800 }).map((n) => `@day:${n}`)],
  [2, fc.string({ maxLength: 20 })],
  [1, fc.string({ unit: 'binary', maxLength: 10 })],
  [2, fc.integer()],
  [1, fc.double({ noNaN: true })],
  [1, fc.jsonValue({ maxDepth: 2 })],
]);

const keyArb = weighted<string>([
  [
    4,
    pick([
      'status',
      'brand_id',
      'owner',
      'id',
      'doorloom_id',
      'revision',
      'sequence',
      'coverage',
      'integration_id',
      'created_at',
      '__proto__',
      'constructor',
      'is_master',
      'external_id',
      'units',
      'inventory_id',
      'is_default',
      'property',
      'check_out',
      '',
      'a.b',
      '0',
    ]),
  ],
  [1, fc.string({ maxLength: 8 })],
]);

const editArb = fc.record({
  at: anyIndex,
  op: pick(['edge', 'edge', 'edge', 'edge', 'delete', 'delete', 'set', 'set', 'wrap', 'stringify', 'add'] as const),
  edge: anyIndex,
  key: keyArb,
  value: valueArb,
});

const bodyArb: fc.Arbitrary<BodyPlan> = weighted<BodyPlan>([
  [4, fc.constant({ kind: 'valid' as const })],
  [8, editArb.map((edit) => ({ kind: 'mutate' as const, edits: [edit] }))],
  [3, fc.tuple(editArb, editArb).map((edits) => ({ kind: 'mutate' as const, edits }))],
  [2, fc.jsonValue({ maxDepth: 3 }).map((value) => ({ kind: 'json' as const, value }))],
  [
    1,
    weighted<string>([
      [3, pick(RAW_BODIES)],
      [1, fc.string({ maxLength: 30 })],
    ]).map((text) => ({ kind: 'raw' as const, text })),
  ],
  [1, fc.constant({ kind: 'none' as const })],
]);

const paramArb: fc.Arbitrary<ParamPlan> = weighted<ParamPlan>([
  [8, anyIndex.map((p) => ({ kind: 'pool' as const, pick: p }))],
  [3, anyIndex.map((p) => ({ kind: 'recent' as const, pick: p }))],
  [
    2,
    weighted<string>([
      [3, pick(NASTY_STRINGS)],
      [1, fc.string({ maxLength: 20 })],
      [1, fc.string({ unit: 'binary', maxLength: 8 })],
    ]).map((text) => ({ kind: 'text' as const, text })),
  ],
  [1, pick(RAW_PATH_SEGMENTS).map((text) => ({ kind: 'raw' as const, text }))],
]);

const queryValueArb = weighted<string>([
  [5, pick(NASTY_STRINGS)],
  [4, pick(NUMBER_STRINGS)],
  [3, fc.integer({ min: -3, max: 300 }).map(String)],
  [2, fc.integer({ min: -5, max: 800 }).map((n) => `@day:${n}`)],
  [1, fc.string({ maxLength: 12 })],
]);

const queryArb = fc.record({
  // `@own:N`: the Nth query parameter of the route itself (read from its schema when sent)
  pairs: fc.array(
    fc.tuple(
      weighted<string>([
        [6, anyIndex.map((n) => `@own:${n}`)],
        [3, pick(QUERY_NAMES)],
        [1, fc.string({ maxLength: 6 })],
      ]),
      queryValueArb,
    ),
    { maxLength: 3 },
  ),
  window: weighted([
    [3, fc.record({ from: fc.integer({ min: -3, max: 760 }), nights: fc.integer({ min: -2, max: 100 }) })],
    [1, fc.constant(null)],
  ]),
  raw: weighted<string | null>([
    [12, fc.constant(null)],
    [1, pick(RAW_QUERIES)],
  ]),
});

const headerArb = fc.array(
  fc.tuple(
    pick(['x-request-id', 'accept', 'x-forwarded-for', 'origin', 'x-http-method-override', 'content-encoding', 'transfer-encoding-x']),
    fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
  ),
  { maxLength: 2 },
);

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** Plans of requests to one of `routeCount` routes. */
export function requestPlans(routeCount: number): fc.Arbitrary<RequestPlan> {
  return fc.record({
    route: fc.noBias(fc.integer({ min: 0, max: routeCount - 1 })),
    method: weighted<string | null>([
      [20, fc.constant(null)],
      [1, pick(OTHER_METHODS)],
    ]),
    params: fc.array(paramArb, { minLength: 2, maxLength: 2 }),
    query: queryArb,
    auth: weighted<string>([
      [24, fc.constant('valid')],
      [6, pick(AUTH_FORMS)],
    ]),
    contentType: weighted<string | null>([
      [14, fc.constant('application/json')],
      [2, pick(CONTENT_TYPES)],
      [1, fc.constant(null)],
    ]),
    idempotency: weighted<string>([
      [10, fc.constant('fresh')],
      [3, pick(IDEMPOTENCY_FORMS)],
    ]),
    ifMatch: weighted<string | null>([
      [5, fc.constant(null)],
      [2, pick(IF_MATCH)],
    ]),
    body: bodyArb,
    headers: weighted([
      [6, fc.constant([] as Array<[string, string]>)],
      [1, headerArb],
    ]),
  });
}

// ---------------------------------------------------------------------------------------------
// Realising a plan

type Path = Array<string | number>;

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

/** An own property even for `__proto__`, so that it is serialised like any other key. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const SENTINEL_ROOT = Symbol('root');

/** `@day:N` strings become the date N days after today, anywhere in a value. */
export function resolveDays(value: unknown, dayOf: (n: number) => string): unknown {
  if (typeof value === 'string') {
    const m = /^@day:(-?\d+)$/.exec(value);
    return m ? dayOf(Number(m[1])) : value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveDays(v, dayOf));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, resolveDays(v, dayOf));
    return out;
  }
  return value;
}

/** Applies the edits of a mutate plan to a copy of `base`; `undefined` means no body at all. */
export function mutate(base: unknown, edits: Extract<BodyPlan, { kind: 'mutate' }>['edits']): unknown {
  const holder: Record<string | symbol, unknown> = { [SENTINEL_ROOT]: structuredClone(base) };
  for (const edit of edits) {
    const root = holder[SENTINEL_ROOT];
    const all = pathsOf(root);
    const path = all[edit.at % all.length];
    const parent = path.slice(0, -1).reduce<any>((node, k) => node[k], root);
    const last = path[path.length - 1];
    const node = path.length === 0 ? root : parent[last as never];
    let next: unknown = node;
    switch (edit.op) {
      case 'delete':
        if (path.length === 0) return undefined;
        if (Array.isArray(parent)) parent.splice(last as number, 1);
        else delete parent[last as string];
        continue;
      case 'set':
        next = structuredClone(edit.value);
        break;
      case 'edge':
        next = structuredClone(edgeOf(node, edit.edge));
        break;
      case 'wrap':
        next = [node];
        break;
      case 'stringify':
        next = JSON.stringify(node) ?? 'undefined';
        break;
      case 'add':
        if (Array.isArray(node)) node.push(structuredClone(edit.value));
        else if (node !== null && typeof node === 'object') setOwn(node as Record<string, unknown>, edit.key, structuredClone(edit.value));
        else next = structuredClone(edit.value);
        break;
    }
    if (path.length === 0) holder[SENTINEL_ROOT] = next;
    else if (next !== node) {
      if (Array.isArray(parent)) parent[last as number] = next;
      else setOwn(parent, last as string, next);
    }
  }
  return holder[SENTINEL_ROOT];
}

/** A short description of a request and its answer, for failure messages. */
export function describeExchange(
  request: { method?: string; url: string; headers: Record<string, string>; payload?: string },
  res: LightMyRequestResponse,
): string {
  const limit = res.statusCode >= 500 ? 20_000 : 600;
  const payload =
    request.payload === undefined ? '' : ` body=${JSON.stringify(request.payload.length > limit ? `${request.payload.slice(0, limit)}…` : request.payload)}`;
  return `${request.method} ${request.url.slice(0, 300)} headers=${JSON.stringify(request.headers)}${payload}\n→ ${res.statusCode} ${res.body.slice(0, 800)}`;
}

/** encodeURIComponent, also for strings with lone surrogates (sent as U+FFFD, as any UTF-8 encoder would). */
export function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

/** The route key of a route relative to its API prefix (`PUT /properties/:property`). */
export const routeKeyOf = (route: RegisteredRoute, prefix: string) => `${route.method} ${route.url.slice(prefix.length)}`;
