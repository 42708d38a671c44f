import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One way a receiver can get webhooks wrong; each should fail certify's check of that very thing. */
export type Flaw =
  | 'accepts-bad-signature'
  | 'ignores-timestamps'
  | 'first-v1-only'
  | 'unknown-type-500'
  | 'slow'
  | 'small-body-limit'
  | 'last-write-wins'
  | 'stripe-only'
  | 're-serialises';

const KNOWN = ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed'];

/**
 * A webhook receiver written from the contract, with its own verification (not the SDK's, so the
 * flaws can be put in), and a mirror-shaped read of the availability it applied. Without a flaw it
 * is correct; each flaw breaks one thing.
 */
export async function startTestReceiver(secret: string, flaw: Flaw | null = null): Promise<{ url: string; stateUrl: string; close: () => Promise<void> }> {
  const hex = (t: string, body: Buffer) => createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  const standardKey = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const b64 = (id: string, t: string, body: Buffer) => createHmac('sha256', standardKey).update(`${id}.${t}.`).update(body).digest();
  const matches = (expected: Buffer, candidates: Buffer[]) => {
    const list = flaw === 'first-v1-only' ? candidates.slice(0, 1) : candidates;
    return flaw === 'accepts-bad-signature' || list.some((c) => c.length === expected.length && timingSafeEqual(c, expected));
  };
  const fresh = (t: string) => flaw === 'ignores-timestamps' || Math.abs(Math.floor(Date.now() / 1000) - Number(t)) <= 300;

  function genuine(headers: http.IncomingHttpHeaders, raw: Buffer): boolean {
    // the classic mistake: verifying what a JSON body parser hands over, not the bytes received
    const body = flaw === 're-serialises' ? Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8')))) : raw;
    const service = headers['x-service-signature'];
    if (typeof service === 'string') {
      const parts = service.split(',').map((p) => p.split('='));
      const t = parts.find(([k]) => k === 't')?.[1];
      const v1 = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v ?? '', 'hex'));
      return t !== undefined && /^\d+$/.test(t) && fresh(t) && matches(hex(t, body), v1);
    }
    if (flaw === 'stripe-only') return false;
    const signature = headers['webhook-signature'];
    const id = headers['webhook-id'];
    const t = headers['webhook-timestamp'];
    if (typeof signature !== 'string' || typeof id !== 'string' || typeof t !== 'string' || !/^\d+$/.test(t)) return false;
    const v1 = signature
      .split(' ')
      .map((p) => p.split(','))
      .filter(([v]) => v === 'v1')
      .map(([, s]) => Buffer.from(s ?? '', 'base64'));
    return fresh(t) && matches(b64(id, t, body), v1);
  }

  /** Per property: the nights of availability and the sequence that set each. */
  const nights = new Map<number, Map<string, { seq: number; row: Record<string, unknown> }>>();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    const state = /^\/mirror\/properties\/(\d+)\/availability$/.exec(url.pathname);
    if (req.method === 'GET' && state) {
      const held = nights.get(Number(state[1]));
      const from = url.searchParams.get('from') ?? '';
      const to = url.searchParams.get('to') ?? '';
      if (!held) return void res.writeHead(404).end();
      const dates = [...held.entries()].filter(([d]) => d >= from && d <= to).map(([, n]) => n.row);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ dates }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (flaw === 'small-body-limit' && size > 16 * 1024) return void res.writeHead(413, { connection: 'close' }).end();
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    if (flaw === 'slow') await new Promise((r) => setTimeout(r, 3000));
    if (!genuine(req.headers, body)) return void res.writeHead(401).end();
    const event = JSON.parse(body.toString('utf8'));
    if (!KNOWN.includes(event.type) && flaw === 'unknown-type-500') return void res.writeHead(500).end();
    if (event.type === 'availability.changed' && event.property) {
      const held = nights.get(event.property.doorloom_id) ?? new Map();
      nights.set(event.property.doorloom_id, held);
      for (const row of event.data.dates as Array<Record<string, unknown> & { date: string }>) {
        const current = held.get(row.date);
        // the contract's sequence rule, per property and type (per night here)
        if (flaw === 'last-write-wins' || !current || current.seq < event.sequence) held.set(row.date, { seq: event.sequence, row });
      }
    }
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    stateUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
