/** Helpers shared by the scripts (and by the tests and the bench that start processes of their own). */
import net from 'node:net';
import path from 'node:path';

/** The repository's root. */
export const ROOT = path.resolve(import.meta.dirname, '..');
/** Debian's PostgreSQL 15 binaries. */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A TCP port free on 127.0.0.1 right now (for a process the caller starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** argv that runs `command` as the postgres user: setpriv execs, so a spawned pid is the command itself. */
export const asPostgresArgv = (command: string, args: string[]): string[] => [
  'setpriv',
  '--reuid=postgres',
  '--regid=postgres',
  '--init-groups',
  '--',
  command,
  ...args,
];
