/**
 * Bad input at volume: one socket sends 1,000 messages a second (FAULTS_FLOOD_RATE) for
 * FAULTS_FLOOD_MS (default 6 s) from a process of its own, while another sends one 2 MB packet.
 * The flooder is rate_limited, the 2 MB packet is refused (its connection closed, nothing stored),
 * and the rest of the room keeps working: its cursors keep arriving, its renewals and requests keep
 * being answered. The cursor latency the others see is measured with and without the flood (a
 * figure for docs/reliability.md, not an assertion: the machine is shared).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { ClientEvent } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRect, storedSnapshot } from './support/board.ts';
import { FaultClient, createRoom, joinRoom, requestId } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import { killAll, repoRoot, spawnServer, track, type ServerProcess } from './support/serverProcess.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';

const FLOOD_MS = Number(process.env.FAULTS_FLOOD_MS ?? 6_000);
const FLOOD_RATE = Number(process.env.FAULTS_FLOOD_RATE ?? 1_000);
/** The mover's cursor rate: the web client's ~30 Hz. */
const MOVE_EVERY_MS = 33;

interface FloodTally {
  sent: number;
  cursorPackets: number;
  requests: number;
  accepted: number;
  rateLimited: number;
  otherRefusals: number;
  unanswered: number;
  noticesRateLimited: number;
  disconnected: string;
  sendingMs: number;
}

function runFlooder(url: string, token: string): Promise<FloodTally> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/faults/support/flooder.ts', url, token, String(FLOOD_RATE), String(FLOOD_MS)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((done, fail) =>
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0) done(JSON.parse(line) as FloodTally);
      else fail(new Error(`flooder exited with ${code}: ${out.slice(-2_000)}`));
    }),
  );
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;
};

for (const store of STORES) describe.skipIf(store.skip !== null)(`a flood and a 2 MB packet from one socket (real server process, ${store.label})${skipNote(store)}`, () => {
  let server: ServerProcess;
  const clients: FaultClient[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    server = await spawnServer(await databaseOn(store, cleanups));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup();
  });

  test(`${FLOOD_RATE} messages/s from one socket and a 2 MB packet: flooder rate_limited, oversize accepted = 0, the others keep being served`, async () => {
    // The watcher (a student) measures the mover's cursor: students see each other's cursors here.
    const teacherGrant = await createRoom(server.url, 'Ms Rivera', { cursorVisibility: 'everyone' });
    const code = teacherGrant.room.code;
    const [moverGrant, watcherGrant, floodGrant, bigGrant] = await Promise.all(['Mo', 'Wes', 'Flo', 'Big'].map((n) => joinRoom(server.url, code, n)));
    const teacher = new FaultClient(server.url, teacherGrant);
    const mover = new FaultClient(server.url, moverGrant!);
    const watcher = new FaultClient(server.url, watcherGrant!);
    clients.push(teacher, mover, watcher);
    await Promise.all([teacher, mover, watcher].map((c) => c.ready()));
    const observers = [teacher, watcher];

    // The mover's cursor carries its send time; each observer's receipt gives one latency sample.
    const samples: number[] = [];
    const seen = new Set<string>();
    for (const o of observers) {
      o.socket.on('cursors', (batch) => {
        const now = Date.now();
        for (const [sessionId, , , t] of batch.cursors) {
          if (sessionId !== moverGrant!.sessionId || t === undefined) continue;
          const key = `${o.sessionId}:${t}`;
          if (seen.has(key)) continue;
          seen.add(key);
          samples.push(now - t);
        }
      });
    }
    const measure = async (during: () => Promise<unknown>) => {
      const from = samples.length;
      let moving = true;
      const moves = (async () => {
        let x = 0;
        while (moving) {
          mover.socket.emit(ClientEvent.CURSOR, { x: x++ % 1000, y: 3, t: Date.now() });
          await new Promise((done) => setTimeout(done, MOVE_EVERY_MS));
        }
      })();
      // Another socket's acknowledged requests keep being answered meanwhile (one a second).
      let served = 0;
      let refused = 0;
      const requests = (async () => {
        while (moving) {
          const reply = await watcher.socket
            .timeout(10_000)
            .emitWithAck(ClientEvent.SYNC_REQUEST, {})
            .catch(() => null);
          if (reply?.ok) served++;
          else refused++;
          await new Promise((done) => setTimeout(done, 1_000));
        }
      })();
      const result = await during();
      moving = false;
      await Promise.all([moves, requests]);
      const window = samples.slice(from);
      return { result, samples: window, served, refused };
    };

    const renewalsOkBefore = watcher.renewals.filter((r) => r.reply.ok).length;
    const quiet = await measure(() => new Promise((done) => setTimeout(done, FLOOD_MS)));
    const renewalsOkQuiet = watcher.renewals.filter((r) => r.reply.ok).length - renewalsOkBefore;

    const big = new FaultClient(server.url, bigGrant!, { renew: false });
    clients.push(big);
    await big.ready();
    const bigClosed = new Promise<string>((done) => big.socket.once('disconnect', (reason) => done(reason)));
    const bigId = randomUUID();
    const renewalsOkAtFlood = watcher.renewals.filter((r) => r.reply.ok).length;
    const renewalsAtFlood = watcher.renewals.length;
    const flood = await measure(async () => {
      const tally = runFlooder(server.url, floodGrant!.token);
      await new Promise((done) => setTimeout(done, FLOOD_MS / 2));
      (big.socket as unknown as { emit(event: string, payload: unknown): void }).emit(ClientEvent.ELEMENT_CREATE, {
        requestId: requestId(),
        id: bigId,
        shape: { kind: 'text', x: 0, y: 0, w: 10, h: 10, text: 'z'.repeat(2 * 1024 * 1024), stroke: '#000000', fontSize: 12 },
      });
      return tally;
    });
    const tally = flood.result as FloodTally;
    const bigReason = await bigClosed;
    const renewalsDuringFlood = watcher.renewals.slice(renewalsAtFlood);
    const renewalsOkFlood = watcher.renewals.filter((r) => r.reply.ok).length - renewalsOkAtFlood;

    // After the flood the room still takes writes from the others, and the 2 MB element is nowhere.
    await createRect(teacher, randomUUID(), 1, 1);
    const snapshot = await storedSnapshot(server.url, teacherGrant);
    const oversizeAccepted = snapshot.elements.filter((e) => e.id === bigId).length;
    const alive = server.child.exitCode === null && server.child.signalCode === null;

    const q = { p50: percentile(quiet.samples, 50), p99: percentile(quiet.samples, 99) };
    const f = { p50: percentile(flood.samples, 50), p99: percentile(flood.samples, 99) };
    reportFigures(`flood and 2 MB packet (${store.label})`, {
      'oversize accepted': oversizeAccepted,
      '2 MB sender': `disconnected (${bigReason})`,
      'flood sent (packets / ms)': `${tally.sent} / ${tally.sendingMs}`,
      'flood requests answered rate_limited / accepted / other / unanswered': `${tally.rateLimited} / ${tally.accepted} / ${tally.otherRefusals} / ${tally.unanswered}`,
      'flooder rate_limited notices': tally.noticesRateLimited,
      'flooder disconnected': tally.disconnected || 'no (it left by itself)',
      "others' cursor latency p50 / p99, quiet (ms)": `${q.p50} / ${q.p99} (${quiet.samples.length} samples)`,
      "others' cursor latency p50 / p99, during the flood (ms)": `${f.p50} / ${f.p99} (${flood.samples.length} samples)`,
      "others' p99 change (ms)": f.p99 - q.p99,
      "others' requests answered, quiet / flood": `${quiet.served} of ${quiet.served + quiet.refused} / ${flood.served} of ${flood.served + flood.refused}`,
      "others' renewals accepted, quiet / flood": `${renewalsOkQuiet} / ${renewalsOkFlood} of ${renewalsDuringFlood.length}`,
      'server alive': alive,
    });
    expect(oversizeAccepted).toBe(0);
    expect(bigReason).toBe('transport close');
    expect(tally.rateLimited).toBeGreaterThan(0);
    expect(tally.unanswered).toBe(0);
    // The others were served all along: cursors kept arriving, every request and renewal answered ok.
    expect(flood.samples.length).toBeGreaterThan(0);
    expect(flood.refused).toBe(0);
    expect(renewalsDuringFlood.filter((r) => !r.reply.ok)).toEqual([]);
    expect(renewalsOkFlood).toBeGreaterThan(0);
    expect(alive).toBe(true);
  });
});
