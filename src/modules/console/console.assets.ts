import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../../http/errors.js';

/** The console's files: the project's `console/` folder (beside src/ and dist/) and uPlot's build. */
const CONSOLE_DIR = path.resolve(import.meta.dirname, '../../../console');
const uplotDir = path.dirname(createRequire(import.meta.url).resolve('uplot'));

// A Map, not an object literal: a name from the URL such as `constructor` or `__proto__` must find nothing.
const ASSETS = new Map<string, { file: string; type: string }>([
  ['', { file: path.join(CONSOLE_DIR, 'index.html'), type: 'text/html; charset=utf-8' }],
  ['index.html', { file: path.join(CONSOLE_DIR, 'index.html'), type: 'text/html; charset=utf-8' }],
  ['app.js', { file: path.join(CONSOLE_DIR, 'app.js'), type: 'text/javascript; charset=utf-8' }],
  ['style.css', { file: path.join(CONSOLE_DIR, 'style.css'), type: 'text/css; charset=utf-8' }],
  ['vendor/uplot.js', { file: path.join(uplotDir, 'uPlot.esm.js'), type: 'text/javascript; charset=utf-8' }],
  ['vendor/uplot.css', { file: path.join(uplotDir, 'uPlot.min.css'), type: 'text/css; charset=utf-8' }],
]);

/**
 * Nothing runs but the service's own files: no inline script or style, no other origin, no
 * plugins, no framing. The staff token lives in the page, so the page must be the only code there.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secured(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cache-control', 'no-cache');
}

/**
 * The operator console at /console: a few static files read once, from a fixed list (no path
 * from the request reaches the file system). It holds no data: everything it shows comes from the
 * staff API, with the staff token the operator signs in with.
 */
export function registerConsole(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  const serve = async (name: string, reply: FastifyReply) => {
    const asset = ASSETS.get(name);
    if (!asset) throw notFound('No such file.');
    let body = cache.get(name);
    if (!body) cache.set(name, (body = await readFile(asset.file)));
    return secured(reply).code(200).type(asset.type).send(body);
  };
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => serve('', reply));
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (request, reply) => serve(request.params['*'], reply));
}
