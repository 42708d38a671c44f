import { Ajv, type ErrorObject } from 'ajv';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { DATE_MESSAGE, isValidDate } from '../lib/time.js';
import { FieldErrorCollector, validationFailed, type FieldErrors } from './errors.js';
import { DATE_PATTERN } from './schemas.js';

/**
 * Bodies are validated strictly (a string "5" is not a number, nothing is coerced or defaulted:
 * the contract refuses rather than coerces). Query strings, path parameters and headers arrive as
 * text, so their validator coerces scalars.
 */
const bodyAjv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false });
const textAjv = new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false });

/** The formats the schemas (and so the OpenAPI document) state: a real calendar date, an RFC 3339 timestamp. */
const TIMESTAMP = /^([0-9]{4}-[0-9]{2}-[0-9]{2})T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$/i;
for (const ajv of [bodyAjv, textAjv]) {
  ajv.addFormat('date', { type: 'string', validate: (value: string) => isValidDate(value) });
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => isValidDate(TIMESTAMP.exec(value)?.[1] ?? '') });
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? bodyAjv.compile(schema as object) : textValidator(schema as object);

/** Integers written in a query string, path or header: digits only (`1e2`, `0x10`, ` 7` and `7.0` are not integers, though JavaScript reads them as numbers). */
const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * The validator of a text part (query, path, headers): the schema with scalars coerced from text,
 * where a field the schema types `integer` must be written as an integer.
 */
function textValidator(schema: { properties?: Record<string, { type?: unknown }> }) {
  const validate = textAjv.compile(schema);
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, field]) => field?.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const check = (data: unknown): boolean => {
    // Before the schema's validator, which coerces the text in place.
    const written: ErrorObject[] = [];
    if (isObject(data)) {
      for (const name of integers) {
        const value = data[name];
        const texts = Array.isArray(value) ? value : [value];
        if (texts.some((text) => typeof text === 'string' && !INTEGER_TEXT.test(text))) {
          written.push({
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/type`,
            keyword: 'type',
            params: { type: 'integer' },
            message: 'must be integer',
          });
        }
      }
    }
    const valid = validate(data);
    if (valid && written.length === 0) return true;
    const paths = new Set(written.map((e) => e.instancePath));
    check.errors = [...written, ...(validate.errors ?? []).filter((e) => !paths.has(e.instancePath))];
    return false;
  };
  check.errors = null as ErrorObject[] | null;
  return check;
}

/**
 * A route whose query string is checked by hand (every refusal keyed as the contract says, the
 * window rules beside the shape): its schema documents the query, required fields included, and
 * the handler enforces it.
 */
export const queryCheckedByHand: FastifySchemaCompiler<unknown> = (route) => (route.httpPart === 'querystring' ? () => true : validatorCompiler(route));

type Obj = Record<string, unknown>;
export const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface BodyValidation {
  /**
   * Rules that compare fields (check_out after check_in, unit names unique, …), run on the body as
   * sent, after the schema and even when it failed: their errors join the schema's in one 422.
   */
  rules?: (body: Obj) => FieldErrors;
  /** Message for a body that is not a JSON object (key `body`); default "must be an object". */
  notAnObject?: string;
  /**
   * Required fields whose absence is not a validation failure: the service answers it with its
   * own code (POST /bookings without `property` is PROPERTY_NOT_MAPPED). The route schema still
   * documents them as required.
   */
  answeredLater?: string[];
  /**
   * A batch: the array of entries at this root field. A batch whose own shape is wrong (not an
   * object, the array missing, empty or over its cap) is refused on that alone, without a word
   * about its entries. Otherwise each entry is reported in turn (its schema errors, then
   * `entryRules` with the entry's `field.N` prefix), then `rules` across entries.
   */
  batch?: { field: string; entryRules?: (entry: unknown, prefix: string) => FieldErrors };
}

/** An object schema's groups: its required properties that are objects with required fields of their own. */
function groupsOf(schema: unknown): Set<string> {
  const groups = new Set<string>();
  const s = schema as { properties?: Record<string, { type?: unknown; required?: string[] }>; required?: string[] } | undefined;
  for (const name of s?.required ?? []) {
    const child = s?.properties?.[name];
    if (child?.type === 'object' && child.required && child.required.length > 0) groups.add(name);
  }
  return groups;
}

/**
 * The contract names required fields (`guest.name`), not groups: a body (or batch entry) without a
 * group that has required fields is checked as if the group were sent empty, so each of its
 * required fields is reported under its own key.
 */
function withGroupsFilledIn(value: unknown, groups: Set<string>): unknown {
  if (!isObject(value) || groups.size === 0) return value;
  let probe: Obj | undefined;
  for (const name of groups) {
    if (value[name] === undefined) (probe ??= { ...value })[name] = {};
  }
  return probe ?? value;
}

/**
 * The body validator of a route: the route's schema, compiled once with the strict body options,
 * then the rules that compare fields. Failures leave as one 422 VALIDATION_FAILED with dotted keys,
 * exactly as the contract words them. Other request parts use the shared compiler.
 */
export function bodyValidation(options: BodyValidation = {}): FastifySchemaCompiler<unknown> {
  return (route) => {
    if (route.httpPart !== 'body') return validatorCompiler(route);
    const schema = route.schema as { properties?: Record<string, { items?: unknown }> };
    const validate = bodyAjv.compile(schema as object);
    const rootGroups = groupsOf(schema);
    const batch = options.batch?.field;
    const entryGroups = batch ? groupsOf(schema.properties?.[batch]?.items) : new Set<string>();
    const deferred = new Set(options.answeredLater ?? []);

    return (data: unknown) => {
      if (!isObject(data)) return { error: validationFailed({ body: [options.notAnObject ?? 'must be an object'] }) };
      let probe = withGroupsFilledIn(data, rootGroups) as Obj;
      if (batch && Array.isArray(probe[batch]) && entryGroups.size > 0) {
        probe = { ...probe, [batch]: (probe[batch] as unknown[]).map((entry) => withGroupsFilledIn(entry, entryGroups)) };
      }
      let errors: ErrorObject[] = [];
      if (!validate(probe)) {
        errors = (validate.errors ?? []).filter((e) => !(e.keyword === 'required' && e.instancePath === '' && deferred.has(String(e.params.missingProperty))));
      }
      const found = new FieldErrorCollector();
      if (batch) {
        const shape = errors.filter((e) => e.instancePath === '' || e.instancePath === `/${batch}`);
        if (shape.length > 0) return { error: validationFailed(toFieldErrors(shape)) };
        (data[batch] as unknown[]).forEach((entry, i) => {
          const path = `/${batch}/${i}`;
          found.merge(toFieldErrors(errors.filter((e) => e.instancePath === path || e.instancePath.startsWith(`${path}/`))));
          if (options.batch?.entryRules) found.merge(options.batch.entryRules(entry, `${batch}.${i}`));
        });
      } else {
        found.merge(toFieldErrors(errors));
      }
      if (options.rules) found.merge(options.rules(data));
      return found.empty ? true : { error: validationFailed(found.errors) };
    };
  };
}

/**
 * A route whose body is required (a PATCH or PUT states what to change): no body at all is refused
 * before validation, rather than read as a change of nothing.
 */
export async function bodyRequired(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) throw validationFailed({ body: ['is required: send the fields to change as a JSON object'] });
}

/**
 * A route whose body is optional: no body reads as `{}` before validation (a JSON `null` is still
 * a body, and is refused as one). With `nullToo`, a JSON `null` reads as `{}` as well.
 */
export function absentBodyIsEmpty(nullToo = false) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.body === undefined || (nullToo && request.body === null)) request.body = {};
  };
}

function pathOf(error: ErrorObject): string {
  const base = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') base.push(String(error.params.missingProperty));
  return base.join('.');
}

function messageOf(error: ErrorObject): string {
  // The params of the keywords below, as Ajv gives them.
  const p = error.params as {
    limit?: number;
    type?: string | string[];
    allowedValues?: (string | number | boolean | null)[];
    allowedValue?: unknown;
    additionalProperty?: string;
    pattern?: string;
    format?: string;
  };
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      // `type: ['string', 'null']` (a nullable field) reads "must be a string or null".
      const article = (t: string) => (t === 'null' ? 'null' : t === 'integer' ? 'an integer' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`);
      return `must be ${(Array.isArray(p.type) ? p.type : [String(p.type)]).map(article).join(' or ')}`;
    }
    case 'maxLength':
      return `must be at most ${p.limit} characters`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${p.limit}`;
    case 'maxItems':
      return `must have at most ${p.limit} entries`;
    case 'minItems':
      return `must have at least ${p.limit} ${p.limit === 1 ? 'entry' : 'entries'}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues ?? []).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern':
      return p.pattern === DATE_PATTERN ? DATE_MESSAGE : 'has an invalid format';
    case 'format':
      return p.format === 'date' ? DATE_MESSAGE : p.format === 'date-time' ? 'must be a timestamp (ISO-8601 with an offset)' : 'has an invalid format';
    case 'additionalProperties':
      return `has an unknown field ${String(p.additionalProperty)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * An array over its `maxItems` is refused as a whole on its own key; what is wrong with entries
 * beyond the cap says nothing more, and would be one message per entry (a 1000-entry `units`
 * would answer a thousand keys).
 */
function withoutEntriesBeyondCap(errors: ErrorObject[]): ErrorObject[] {
  const caps = errors.filter((e) => e.keyword === 'maxItems').map((e) => ({ path: `${e.instancePath}/`, limit: Number(e.params.limit) }));
  if (caps.length === 0) return errors;
  return errors.filter(
    (e) => !caps.some((cap) => e.instancePath.startsWith(cap.path) && Number.parseInt(e.instancePath.slice(cap.path.length), 10) >= cap.limit),
  );
}

/**
 * Turns Ajv errors into the contract's `errors` object: dotted paths, arrays of messages. A failed
 * union (anyOf, e.g. "string or null") reports one message for its path instead of one per branch.
 */
export function toFieldErrors(allErrors: ErrorObject[], prefix = ''): FieldErrors {
  const errors = withoutEntriesBeyondCap(allErrors);
  // Group once by path: a failed union is explained by its branches at the same path.
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPath.get(e.instancePath);
    if (list) list.push(e);
    else byPath.set(e.instancePath, [e]);
  }
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath));
  const out = new FieldErrorCollector(prefix);
  for (const error of errors) {
    let message: string;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const branches = byPath.get(error.instancePath)!.filter((e) => e.keyword !== error.keyword);
      const allowed = branches.flatMap((e) =>
        e.keyword === 'const' ? [e.params.allowedValue as unknown] : e.keyword === 'enum' ? (e.params.allowedValues as unknown[]) : [],
      );
      const allowsNull = branches.some((e) => e.keyword === 'type' && e.params.type === 'null');
      const onlyLiterals = branches.every((e) => e.keyword === 'const' || e.keyword === 'enum' || (e.keyword === 'type' && e.params.type === 'null'));
      message =
        allowed.length > 0 && onlyLiterals ? `must be one of: ${allowed.map(String).join(', ')}${allowsNull ? ', or null' : ''}` : 'has an invalid value';
    } else if (unionPaths.has(error.instancePath) && error.keyword !== 'required') {
      continue; // a branch of a union reported above
    } else {
      message = messageOf(error);
    }
    out.add(pathOf(error), message);
  }
  return out.errors;
}
