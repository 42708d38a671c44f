/**
 * Failover timing on the fleet of scripts/fleet.ts: kills the Patroni primary (Patroni and
 * PostgreSQL with -9) while a client writes through the node HAProxy every 100 ms, and measures the
 * time from the kill to the first acknowledged write sent after it; then lets the killed member
 * rejoin as the synchronous standby and repeats. Prints each figure and the p50.
 *
 *   npm run fleet -- up --pool-mode session && npx tsx scripts/fleet-failover.ts [ROUNDS] [STATE_DIR]
 */
import { killMember, leaderName, loadState, startMember, waitForSyncPair } from './fleet.js';
import { sleep } from './lib.js';

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const state = await loadState(process.argv[3]);
  const times: number[] = [];
  const answers: Record<string, number> = {};
  let slowest = 0;
  for (let round = 1; round <= rounds; round++) {
    await waitForSyncPair(state);
    const leader = (await leaderName(state))!;
    const killedAt = performance.now();
    killMember(state, leader);
    let first = 0;
    while (!first && performance.now() - killedAt < 120_000) {
      const sent = performance.now();
      let status: number;
      let code = '';
      try {
        const res = await fetch(`${state.apiUrl}/api/staff/v1/brands`, {
          method: 'POST',
          headers: { authorization: `Bearer ${state.staffToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `failover ${round}` }),
          signal: AbortSignal.timeout(60_000),
        });
        status = res.status;
        code = ((await res.json().catch(() => ({}))) as { code?: string }).code ?? '';
      } catch {
        status = 0;
      }
      slowest = Math.max(slowest, performance.now() - sent);
      const key = `${status}${code ? ` ${code}` : ''}`;
      answers[key] = (answers[key] ?? 0) + 1;
      if (status === 201) first = performance.now() - killedAt;
      else await sleep(100);
    }
    const promoted = await leaderName(state);
    console.log(`round ${round}: ${leader} killed, ${promoted} primary, first acknowledged write after ${(first / 1000).toFixed(1)} s`);
    times.push(first);
    await startMember(state, leader);
  }
  await waitForSyncPair(state);
  const sorted = [...times].sort((a, b) => a - b);
  const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
  console.log(
    `kill → first acknowledged write over ${rounds} failovers: p50 ${(p50 / 1000).toFixed(1)} s, min ${(sorted[0] / 1000).toFixed(1)} s, max ${(sorted.at(-1)! / 1000).toFixed(1)} s; slowest answer ${(slowest / 1000).toFixed(1)} s; answers ${JSON.stringify(answers)}`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`fleet-failover: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
