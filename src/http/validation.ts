import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldErrors } from './errors.js';

/**
 * Bodies are validated strictly (a string "5" is not a number, nothing is coerced or defaulted:
 * the contract refuses rather than coerces). Query strings, path parameters and headers arrive as
 * text, so their validator coerces scalars.
 */
const bodyAjv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false });
const textAjv = new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);

/** Compiles a schema for the same strict body validation outside a route (bulk items, staff bodies). */
export function compileBodySchema(schema: object) {
  return bodyAjv.compile(schema);
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
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      // `type: ['string', 'null']` (a nullable field) reads "must be a string or null".
      const article = (t: unknown) => (t === 'null' ? 'null' : t === 'integer' ? 'an integer' : `a${/^[aeiou]/.test(String(t)) ? 'n' : ''} ${t}`);
      return `must be ${(Array.isArray(p.type) ? p.type : [p.type]).map(article).join(' or ')}`;
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
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern':
      return 'has an invalid format';
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
  const out: FieldErrors = {};
  for (const error of errors) {
    let message: string;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const branches = byPath.get(error.instancePath)!.filter((e) => e.keyword !== error.keyword);
      const allowed = branches.flatMap((e) =>
        e.keyword === 'const' ? [e.params.allowedValue] : e.keyword === 'enum' ? (e.params.allowedValues as unknown[]) : [],
      );
      const allowsNull = branches.some((e) => e.keyword === 'type' && e.params.type === 'null');
      const onlyLiterals = branches.every((e) => e.keyword === 'const' || e.keyword === 'enum' || (e.keyword === 'type' && e.params.type === 'null'));
      message =
        allowed.length > 0 && onlyLiterals
          ? `must be one of: ${allowed.map(String).join(', ')}${allowsNull ? ', or null' : ''}`
          : 'has an invalid value';
    } else if (unionPaths.has(error.instancePath) && error.keyword !== 'required') {
      continue; // a branch of a union reported above
    } else {
      message = messageOf(error);
    }
    const path = pathOf(error);
    const key = prefix ? (path ? `${prefix}.${path}` : prefix) : path || 'body';
    const list = (out[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return out;
}
