// The baseline: a bare Fastify JSON route, the same framework and process model as the service
// but none of its work (auth, rate limits, database). Prints "listening <port>".
//   GET /me           a /me-sized JSON answer
//   GET /bytes/:n     a JSON answer of n bytes (the snapshot baseline: same size, no work)
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const payload = { success: true, message: 'ok', data: { id: 1, slug: 'baseline', status: 'active' } };
app.get('/me', async () => payload);

const sized = new Map();
app.get('/bytes/:n', async (request, reply) => {
  const n = Math.min(Math.max(Number(request.params.n) || 0, 16), 8 * 1024 * 1024);
  let body = sized.get(n);
  if (!body) sized.set(n, (body = `{"data":"${'x'.repeat(n - 12)}"}`));
  return reply.type('application/json').send(body);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write(`listening ${process.env.PORT}\n`);
