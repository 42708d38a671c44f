import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../src/http/request-logger.js';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const parent = pino({ level }, out);
  let children = 0;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the `this` of the logger it is called on.
  const child = parent.child;
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent, lines, children: () => children };
}

describe('lazy request loggers', () => {
  it('make no pino child while nothing is logged at an enabled level, and bind everything once they log', () => {
    const { parent, lines, children } = capture('warn');
    const request = lazyRequestLogger.call(null, parent, { reqId: 'r-1' }, {});
    const authenticated = request.child({ integration_id: 7 });
    request.info('incoming request');
    authenticated.info({ res: { statusCode: 200 } }, 'request completed');
    authenticated.debug('detail');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    expect(request.level).toBe('warn');
    expect((request as typeof request & { isLevelEnabled(level: string): boolean }).isLevelEnabled('info')).toBe(false);

    authenticated.warn({ slug: 's' }, 'something to see');
    // pino children inherit the counted child(): the request's child and auth's, each made once
    expect(children()).toBe(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'r-1', integration_id: 7, slug: 's', msg: 'something to see', level: 40 });
    request.error('on the request itself');
    expect(lines[1]).toMatchObject({ reqId: 'r-1', msg: 'on the request itself' });
    expect(lines[1]).not.toHaveProperty('integration_id');
    expect(children()).toBe(2);
  });

  it('logs every line at info when the level is info, and a route level makes the child at once', () => {
    const { parent, lines, children } = capture('info');
    const request = lazyRequestLogger.call(null, parent, { reqId: 'r-2' }, {});
    request.info('incoming request');
    expect(lines[0]).toMatchObject({ reqId: 'r-2', msg: 'incoming request' });
    lazyRequestLogger.call(null, parent, { reqId: 'r-3' }, { level: 'error' });
    expect(children()).toBe(2);
  });
});
