import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, docsCsp } from '../../src/app.js';
import { createLogger } from '../../src/lib/logger.js';
import { createTestContext, STAFF_TOKEN, type TestContext } from '../helpers/context.js';

/** The small leaks: console asset names, /docs framing and scripts, credentials in log lines. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, sink };
}

describe('console assets', () => {
  it.each(['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__', 'prototype'])(
    '/console/%s is 404 NOT_FOUND, logged at no error level',
    async (name) => {
      const { lines, sink } = captured();
      const app = await buildApp(ctx.deps, { logger: createLogger('info', sink) });
      try {
        const res = await app.inject({ method: 'GET', url: `/console/${name}` });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
      } finally {
        await app.close();
      }
    },
  );

  it('still serves its own files', async () => {
    for (const url of ['/console', '/console/app.js', '/console/style.css', '/console/vendor/uplot.js']) {
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });
});

describe('/docs', () => {
  it.each(['/docs', '/docs/', '/docs/static/index.html', '/docs/static/swagger-initializer.js', '/docs/json', '/docs/openapi.json'])(
    '%s may not be framed and runs only its own scripts',
    async (url) => {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(400);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it.each(['/docs', '/docs/', '/docs/static/swagger-initializer.js'])('%s carries a strict Content-Security-Policy with frame-ancestors none', async (url) => {
    const res = await ctx.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
    expect(directives.get('script-src')).not.toContain("'unsafe-eval'");
    expect(csp.match(/frame-ancestors/g)).toHaveLength(1);
    // Only what the service serves itself: keywords, hashes and data: icons, no host and no scheme.
    for (const [name, values] of directives) {
      for (const value of values) expect(value, `${name} ${value}`).toMatch(/^('[^']+'|data:)$/);
    }
    expect(csp).not.toContain('validator.swagger.io');
  });

  it('replaces any frame-ancestors directive, and adds one where none was', () => {
    expect(docsCsp("default-src 'self'; frame-ancestors 'self'; upgrade-insecure-requests;")).toBe("default-src 'self'; frame-ancestors 'none'");
    expect(docsCsp("default-src 'self';")).toBe("default-src 'self'; frame-ancestors 'none'");
    expect(docsCsp("img-src 'self' data: validator.swagger.io; style-src 'self' https: 'sha256-x'")).toBe(
      "img-src 'self' data:; style-src 'self' 'sha256-x'; frame-ancestors 'none'",
    );
  });
});

describe('log redaction', () => {
  it('writes no credential that reaches a log line: headers, bodies, configuration', () => {
    const { lines, sink } = captured();
    const log = createLogger('info', sink);
    const integrationKey = 'dlk_' + 'k'.repeat(40);
    log.info(
      {
        req: { headers: { authorization: `Bearer ${STAFF_TOKEN}`, cookie: 'c=1', 'x-api-key': integrationKey } },
        body: { api_key: integrationKey, webhook_secret: 'whsec_abc', token: STAFF_TOKEN, name: 'kept' },
        config: { staffToken: STAFF_TOKEN, metricsToken: 'metrics-token-0000', secretsKey: 'ab'.repeat(32), databaseUrl: 'postgres://u:pw@db/x', port: 8080 },
        err: { response: { request: { authorization: `Bearer ${integrationKey}` } } },
      },
      'a line with everything in it',
    );
    const text = JSON.stringify(lines);
    for (const secret of [STAFF_TOKEN, integrationKey, 'whsec_abc', 'metrics-token-0000', 'ab'.repeat(32), 'pw@db', 'c=1']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ body: { name: 'kept', api_key: '[redacted]' }, config: { port: 8080 } });
  });

  it('a request logged by the service shows no Authorization header', async () => {
    const { lines, sink } = captured();
    const app = await buildApp(ctx.deps, { logger: createLogger('info', sink) });
    try {
      app.get('/log-headers-probe', async (request) => {
        request.log.error({ headers: request.headers, req: { headers: request.headers } }, 'probe');
        return { ok: true };
      });
      await app.inject({ method: 'GET', url: '/log-headers-probe', headers: { authorization: `Bearer ${STAFF_TOKEN}` } });
      expect(lines.some((l) => l.msg === 'probe')).toBe(true);
      expect(JSON.stringify(lines)).not.toContain(STAFF_TOKEN);
    } finally {
      await app.close();
    }
  });
});
