// The baseline: a bare Fastify JSON route, the same framework and process model as the service
// but none of its work (auth, rate limits, database). Prints "listening <port>".
//   GET /me           a small JSON answer (83 bytes; the service's /me sends about 550: sending
//                     549 bytes instead measured the same CPU per request, 19–23 µs)
//   GET /bytes/:n     a JSON answer of n bytes (the snapshot baseline: same size, no work)
//   POST /insert      with DATABASE_URL set: one single-row INSERT transaction on that PostgreSQL
//                     (BEGIN, INSERT … RETURNING, COMMIT on a pool of 10), answering 201 with the
//                     new id: the booking-create baseline (the database's own per-write ceiling
//                     as one Fastify route reaches it)
import Fastify from 'fastify';
import pg from 'pg';

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
if (process.env.DATABASE_URL) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  await pool.query('create table if not exists baseline_rows (id bigserial primary key, body jsonb not null, created_at timestamptz not null default now())');
  app.post('/insert', async (request, reply) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query({
        name: 'baseline_insert',
        text: 'insert into baseline_rows (body) values ($1) returning id',
        values: [request.body],
      });
      await client.query('commit');
      return reply.code(201).send({ success: true, data: { id: Number(rows[0].id) } });
    } finally {
      client.release();
    }
  });
}
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write(`listening ${process.env.PORT}\n`);
