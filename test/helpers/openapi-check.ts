import { readFileSync } from 'node:fs';
import diagnostics from 'node:diagnostics_channel';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Every answer the test suite receives from an app built in the test process is checked against
 * the committed OpenAPI document (docs/openapi.json, itself checked against the code by
 * test/openapi.test.ts): its status must be listed for the operation, every header it sends must
 * be declared (with a value its schema allows), and its body must match the declared content.
 * A successful answer must also have come from a request the document allows: a request that
 * breaks the document's own rules must not be accepted.
 *
 * The check hooks into every Fastify instance as it is created (the `fastify.initialization`
 * diagnostics channel, Fastify's public instrumentation point), so requests by `app.inject` and
 * over real sockets, from createTestContext, startSecondApp or a bare buildApp, all pass it
 * without a test asking for it. Findings are collected and fail the test that received them
 * (see openapi-setup.ts).
 */

type Any = any;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** Transport and entity headers that HTTP itself defines: not the document's business. */
const TRANSPORT_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'vary']);

interface Checker {
  document: Any;
  ajv: Ajv2020;
  compiled: Map<string, ValidateFunction>;
}

const state = globalThis as unknown as {
  __openapiCheck?: { checker?: Checker; findings: string[]; subscribed: boolean };
};
state.__openapiCheck ??= { findings: [], subscribed: false };
const shared = state.__openapiCheck;

function checker(): Checker {
  if (shared.checker) return shared.checker;
  const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  shared.checker = { document, ajv, compiled: new Map() };
  return shared.checker;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (...segments: string[]) => 'openapi#/' + segments.map((s) => encodeURIComponent(escape(s))).join('/');

/** A schema of the document by its JSON pointer, compiled once; `$ref`s inside resolve in the document. */
function validatorAt(c: Checker, ...segments: string[]): ValidateFunction {
  const ref = pointer(...segments);
  let validate = c.compiled.get(ref);
  if (!validate) {
    validate = c.ajv.compile({ $ref: ref });
    c.compiled.set(ref, validate);
  }
  return validate;
}

function resolve(c: Checker, node: Any): Any {
  let out = node;
  while (out && typeof out.$ref === 'string') {
    out = out.$ref
      .slice(2)
      .split('/')
      .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at: Any, key: string) => at?.[key], c.document);
  }
  return out;
}

/** The document's operation for a routed request, or null when the route is not documented. */
function operationOf(c: Checker, request: FastifyRequest): { path: string; method: string; operation: Any } | null {
  const url = request.routeOptions.url;
  if (!url) return null;
  const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const method = request.method.toLowerCase() === 'head' ? 'get' : request.method.toLowerCase();
  const operation = c.document.paths?.[path]?.[method];
  return operation ? { path, method, operation } : null;
}

/** Ajv's errors in short: one line per kind of error (array indices folded), at most six. */
function errorsInShort(errors: ErrorObject[] | null | undefined): string {
  const lines = [
    ...new Set(
      (errors ?? [])
        .filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
        .map((e) => `${e.instancePath.replace(/\/[0-9]+(?=\/|$)/g, '/N') || '/'} ${e.message}`),
    ),
  ];
  return lines.slice(0, 6).join('; ') + (lines.length > 6 ? `; … ${lines.length - 6} more` : '');
}

const describe = (request: FastifyRequest, reply: FastifyReply) => `${request.method} ${request.url} → ${reply.statusCode}`;

function headerValueFails(c: Checker, header: Any, value: string): string | null {
  const schema = resolve(c, header.schema) ?? {};
  if (schema.type === 'integer') return /^-?[0-9]+$/.test(value) ? null : `is not an integer: ${JSON.stringify(value)}`;
  if (schema.type === 'string' || schema.enum) {
    const validate = compiledSchema(c, schema);
    return validate(value) ? null : `${JSON.stringify(value)} ${c.ajv.errorsText(validate.errors)}`;
  }
  return null;
}

/** What is wrong with an answer, as sentences; empty when the document describes it. */
export function responseFindings(request: FastifyRequest, reply: FastifyReply, payload: unknown): string[] {
  const c = checker();
  const found = operationOf(c, request);
  if (!found) {
    // Routes the document hides on purpose (health, metrics, the console, the reference itself)
    // and requests no route took (their 404/405 answers are the router's) are not described.
    const hidden = (request.routeOptions.schema as Any)?.hide === true || !request.routeOptions.url || request.routeOptions.url.includes('*');
    return hidden || !request.routeOptions.url.startsWith('/api/')
      ? []
      : [`${describe(request, reply)}: the route ${request.routeOptions.url} is not in the document`];
  }
  const { path, method, operation } = found;
  const status = String(reply.statusCode);
  const responses = operation.responses ?? {};
  const key = status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : 'default' in responses ? 'default' : null;
  if (key === null) return [`${describe(request, reply)}: status ${status} is not listed for ${method.toUpperCase()} ${path}`];
  const response = resolve(c, responses[key]);
  const problems: string[] = [];

  const declared = new Map(Object.entries((response.headers ?? {}) as Record<string, Any>).map(([name, h]) => [name.toLowerCase(), resolve(c, h)]));
  const sent = reply.getHeaders();
  for (const [name, raw] of Object.entries(sent)) {
    const lower = name.toLowerCase();
    if (TRANSPORT_HEADERS.has(lower) || raw === undefined) continue;
    const header = declared.get(lower);
    if (!header) {
      problems.push(`header ${name} is sent but not declared`);
      continue;
    }
    const why = headerValueFails(c, header, Array.isArray(raw) ? raw.join(', ') : String(raw));
    if (why) problems.push(`header ${name} ${why}`);
  }
  for (const [name, header] of declared) if (header?.required && sent[name] === undefined) problems.push(`required header ${name} is missing`);

  const content = response.content as Record<string, Any> | undefined;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : null;
  if (body !== null && request.method !== 'HEAD') {
    if (!content) {
      if (body !== '') problems.push(`a body is sent where the document declares none`);
    } else {
      const type = String(sent['content-type'] ?? '')
        .split(';')[0]
        .trim();
      const media = content[type];
      if (!media) problems.push(`content type ${JSON.stringify(type)} is not declared (${Object.keys(content).join(', ')})`);
      else if (media.schema && type === 'application/json') {
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch {
          problems.push('the body is not JSON');
        }
        if (value !== undefined) {
          const where =
            typeof responses[key].$ref === 'string'
              ? ['components', 'responses', responses[key].$ref.split('/').pop()]
              : ['paths', path, method, 'responses', key];
          const validate = validatorAt(c, ...where, 'content', type, 'schema');
          if (!validate(value)) {
            problems.push(`the body does not match its schema: ${errorsInShort(validate.errors)} — body ${body.slice(0, 300)}`);
          }
        }
      }
    }
  }
  return problems.map((p) => `${describe(request, reply)}: ${p}`);
}

/** A parameter's text as the value its schema types it (null when the text cannot be that type). */
function typedText(schema: Any, text: string): unknown {
  switch (schema?.type) {
    case 'integer':
      return /^-?[0-9]+$/.test(text) ? Number(text) : null;
    case 'number':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : null;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : null;
    default:
      return text;
  }
}

function compiledSchema(c: Checker, schema: Any): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = c.compiled.get(key);
  if (!validate) c.compiled.set(key, (validate = c.ajv.compile(schema)));
  return validate;
}

/**
 * What is wrong with a request that the service accepted (a 2xx answer): a request that breaks the
 * document's own rules must be refused, so a client generated from the document and the service
 * agree on what is valid.
 */
export function acceptedRequestFindings(request: FastifyRequest, reply: FastifyReply): string[] {
  if (reply.statusCode < 200 || reply.statusCode >= 300) return [];
  const c = checker();
  const found = operationOf(c, request);
  if (!found) return [];
  const { path, method, operation } = found;
  const problems: string[] = [];
  const query = new URLSearchParams(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '');
  const parameters = [...(c.document.paths[path].parameters ?? []), ...(operation.parameters ?? [])].map((p: Any) => resolve(c, p));
  for (const parameter of parameters) {
    const name = String(parameter.name);
    let texts: string[];
    if (parameter.in === 'query') texts = query.getAll(name);
    else if (parameter.in === 'header') {
      const value = request.headers[name.toLowerCase()];
      texts = value === undefined ? [] : Array.isArray(value) ? value : [String(value)];
    } else if (parameter.in === 'path') {
      const value = (request.params as Record<string, string | number | undefined>)?.[name];
      texts = value === undefined ? [] : [String(value)];
    } else continue;
    if (texts.length === 0) {
      if (parameter.required) problems.push(`the ${parameter.in} parameter ${name} is required, yet the request was accepted without it`);
      continue;
    }
    const schema = resolve(c, parameter.schema) ?? {};
    if (schema.type === 'array') continue;
    for (const text of texts) {
      const value = typedText(schema, text);
      const validate = compiledSchema(c, schema);
      if (value === null || !validate(value)) {
        problems.push(
          `the ${parameter.in} parameter ${name}=${JSON.stringify(text)} breaks its schema${value === null ? ` (not ${schema.type === 'integer' ? 'an' : 'a'} ${schema.type})` : `: ${c.ajv.errorsText(validate.errors)}`}, yet the request was accepted`,
        );
      }
    }
  }
  const requestBody = resolve(c, operation.requestBody);
  if (requestBody) {
    const body = request.body;
    if (body === undefined || body === null) {
      if (requestBody.required && body === undefined) problems.push('the request body is required, yet the request was accepted without one');
    } else {
      const schema = requestBody.content?.['application/json']?.schema;
      if (schema) {
        const validate = validatorAt(c, 'paths', path, method, 'requestBody', 'content', 'application/json', 'schema');
        if (!validate(body)) problems.push(`the request body breaks its schema (${errorsInShort(validate.errors)}), yet the request was accepted`);
      }
    }
  }
  return problems.map((p) => `${describe(request, reply)}: ${p}`);
}

/** The findings since the last call (openapi-setup.ts fails the running test with them). */
export function takeFindings(): string[] {
  return shared.findings.splice(0);
}

const payloads = new WeakMap<FastifyRequest, unknown>();

function instrument(app: FastifyInstance): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    payloads.set(request, payload);
    done(null, payload);
  });
  // After the answer left: every hook (the request id, the rate-limit headers) has set its headers.
  app.addHook('onResponse', (request, reply, done) => {
    try {
      if (payloads.has(request)) shared.findings.push(...responseFindings(request, reply, payloads.get(request)), ...acceptedRequestFindings(request, reply));
    } catch (error) {
      shared.findings.push(`${describe(request, reply)}: the check failed: ${String((error as Error)?.stack ?? error)}`);
    }
    done();
  });
}

/** Checks every Fastify app created in this process from now on (idempotent). */
export function checkEveryApp(): void {
  if (shared.subscribed) return;
  shared.subscribed = true;
  diagnostics.subscribe('fastify.initialization', (message) => instrument((message as { fastify: FastifyInstance }).fastify));
}
