import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { AppError, type FieldErrors } from '../../src/http/errors.js';
import { bodyValidation, type BodyValidation } from '../../src/http/validation.js';

/**
 * The route body validator on its own: the schema compiled once with the strict body options,
 * then the rules that compare fields, answered as one 422 with the contract's dotted keys.
 */

const Guest = Type.Object({ name: Type.String({ minLength: 1 }), mobile: Type.Optional(Type.String()) });
const Body = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 5 }),
  count: Type.Optional(Type.Integer({ minimum: 1 })),
  guest: Guest,
  ref: Type.Object({ id: Type.Optional(Type.Integer()) }),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
});
const Batch = Type.Object({ items: Type.Array(Body, { minItems: 1, maxItems: 2 }) });

function validatorFor(schema: object, options?: BodyValidation) {
  const validate = bodyValidation(options)({ schema, method: 'POST', url: '/x', httpPart: 'body' }) as (data: unknown) => true | { error: unknown };
  /** The field errors of a refusal, or null when the body passes. */
  return (data: unknown) => {
    const result = validate(data);
    if (result === true) return null;
    expect(result.error).toBeInstanceOf(AppError);
    const error = result.error as AppError;
    expect([error.status, error.code]).toEqual([422, 'VALIDATION_FAILED']);
    return error.errors;
  };
}

const valid = { name: 'Asha', guest: { name: 'A' }, ref: {} };

describe('route body validation', () => {
  it('passes a valid body and refuses one that is not an object with the given message', () => {
    const check = validatorFor(Body, { notAnObject: 'must be a JSON object' });
    expect(check(valid)).toBeNull();
    for (const data of [null, 'x', [], 5]) expect(check(data)).toEqual({ body: ['must be a JSON object'] });
    expect(validatorFor(Body)(null)).toEqual({ body: ['must be an object'] });
  });

  it('never coerces: a string "5" is not an integer', () => {
    expect(validatorFor(Body)({ ...valid, count: '5' })).toEqual({ count: ['must be an integer'] });
  });

  it('reports a missing group by its required fields, and a group without required fields by its own key', () => {
    expect(validatorFor(Body)({ name: 'Asha' })).toEqual({ 'guest.name': ['is required'], ref: ['is required'] });
  });

  it('leaves the absence of an answeredLater field to the service, but still checks it when sent', () => {
    const check = validatorFor(Body, { answeredLater: ['ref'] });
    expect(check({ name: 'Asha', guest: { name: 'A' } })).toBeNull();
    expect(check({ ...valid, ref: 'x' })).toEqual({ ref: ['must be an object'] });
  });

  it('merges the rules’ errors after the schema’s, even when the schema failed', () => {
    const check = validatorFor(Body, { rules: (body): FieldErrors => (body.name === 'Asha' ? { name: ['is taken'] } : {}) });
    expect(check({ ...valid, count: 0 })).toEqual({ count: ['must be at least 1'], name: ['is taken'] });
    expect(check({ ...valid, name: 'Ravi' })).toBeNull();
  });

  it('refuses an array over its cap on its own key only', () => {
    expect(validatorFor(Body)({ ...valid, tags: ['a', 'b', 5, 6] })).toEqual({ tags: ['must have at most 2 entries'] });
  });

  it('a batch: its shape alone when wrong; otherwise each entry in turn with its prefix, then the rules across entries', () => {
    const check = validatorFor(Batch, {
      batch: { field: 'items', entryRules: (entry, prefix) => ((entry as { name?: string }).name === 'dup' ? { [`${prefix}.name`]: ['is a dup'] } : {}) },
      rules: () => ({ items: ['across entries'] }),
    });
    expect(check({ items: [valid, valid, valid] })).toEqual({ items: ['must have at most 2 entries'] });
    expect(check({})).toEqual({ items: ['is required'] });
    const errors = check({
      items: [
        { name: 'dup', guest: { name: 'A' }, ref: {} },
        { name: 'toolong', ref: {} },
      ],
    })!;
    expect(errors).toEqual({
      'items.0.name': ['is a dup'],
      'items.1.name': ['must be at most 5 characters'],
      'items.1.guest.name': ['is required'],
      items: ['across entries'],
    });
    // entry by entry (schema, then the entry's rules), the rules across entries last
    expect(Object.keys(errors)).toEqual(['items.0.name', 'items.1.name', 'items.1.guest.name', 'items']);
  });
});
