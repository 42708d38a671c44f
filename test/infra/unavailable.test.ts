import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/database.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

/** Which errors mean "the database cannot answer now" (503 DATABASE_UNAVAILABLE) and which do not (500). */
describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET')],
    ['host unreachable', withCode('EHOSTUNREACH')],
    ['admin_shutdown (pg_terminate_backend)', withCode('57P01', 'terminating connection due to administrator command')],
    ['crash_shutdown', withCode('57P02')],
    ['cannot_connect_now (starting up)', withCode('57P03', 'the database system is starting up')],
    ['connection_failure', withCode('08006')],
    ['connection_does_not_exist', withCode('08003')],
    ['too_many_connections', withCode('53300')],
    ['statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['read-only transaction (a standby during a failover)', withCode('25006', 'cannot execute INSERT in a read-only transaction')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connect timeout', new Error('Connection terminated due to connection timeout')],
    ['connection ended', new Error('Connection terminated unexpectedly')],
    ['read timeout', new Error('Query read timeout')],
    ['not queryable', new Error('Client has encountered a connection error and is not queryable')],
    ['wrapped (migration failed)', new Error('migration x failed: connect ECONNREFUSED', { cause: withCode('ECONNREFUSED') })],
  ])('%s → unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['unique violation', withCode('23505', 'duplicate key value violates unique constraint')],
    ['syntax error', withCode('42601')],
    ['serialization failure', withCode('40001')],
    ['plain error', new Error('boom')],
    ['not an error', 'text'],
    ['null', null],
  ])('%s → not unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
