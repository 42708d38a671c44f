// The baseline: a bare Fastify JSON route, the same framework and process model as the service
// but none of its work (auth, rate limits, database). Prints "listening <port>".
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const payload = { success: true, message: 'ok', data: { id: 1, slug: 'baseline', status: 'active' } };
app.get('/me', async () => payload);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write(`listening ${process.env.PORT}\n`);
