/**
 * Fault injection for the release drill and the fault suite, enabled only by WB_TEST_HOOKS=1
 * (and refused together with NODE_ENV=production). In production this object does not exist and
 * every hook site is one null check.
 */
import type { Store } from '@wb/db';
import { ServerEvent } from '@wb/protocol';
import type { FastifyInstance } from 'fastify';
import { roomChannel } from './realtime/channels.ts';
import type { WbServer } from './realtime/types.ts';

export class TestHooks {
  /** Sessions whose sockets miss the next N room events (a forced revision gap). */
  readonly withheld = new Map<string, number>();
  /** Sessions whose inbound packets are held at the server's door ("in flight"). */
  readonly heldInbound = new Map<string, (() => void)[]>();

  /** Sessions to skip for this event; consumes one withheld event from each. */
  takeWithheld(): string[] {
    const skip: string[] = [];
    for (const [sessionId, left] of this.withheld) {
      skip.push(sessionId);
      if (left <= 1) this.withheld.delete(sessionId);
      else this.withheld.set(sessionId, left - 1);
    }
    return skip;
  }

  /** True when the packet was queued to be let through later. */
  holdInbound(sessionId: string, next: () => void): boolean {
    const queue = this.heldInbound.get(sessionId);
    if (!queue) return false;
    queue.push(next);
    return true;
  }
}

export function registerTestRoutes(app: FastifyInstance, hooks: TestHooks, io: () => WbServer, store: Store): void {
  const body = (request: { body: unknown }) => (request.body ?? {}) as Record<string, unknown>;

  /** Delivers a logged event to the room a second time (a duplicate delivery). */
  app.post('/__test/redeliver', async (request, reply) => {
    const eventId = String(body(request).eventId ?? '');
    const event = await store.findRoomEvent(eventId);
    if (!event) return reply.code(404).send({ error: { code: 'not_found', message: `no event ${eventId}` } });
    io().to(roomChannel(event.roomId)).emit(ServerEvent.ROOM_EVENT, event);
    return { ok: true, event };
  });

  /** The session's sockets miss the next `count` room events. */
  app.post('/__test/withhold', async (request) => {
    const { sessionId, count } = body(request);
    hooks.withheld.set(String(sessionId), Number(count ?? 1));
    return { ok: true };
  });

  /** Holds (true) or lets through (false) the session's inbound packets. */
  app.post('/__test/hold-inbound', async (request) => {
    const { sessionId, hold } = body(request);
    const id = String(sessionId);
    if (hold) {
      // Asking again reports how many packets are waiting at the door.
      const queue = hooks.heldInbound.get(id) ?? [];
      hooks.heldInbound.set(id, queue);
      return { ok: true, held: queue.length };
    }
    const queue = hooks.heldInbound.get(id) ?? [];
    hooks.heldInbound.delete(id);
    for (const next of queue) next();
    return { ok: true, released: queue.length };
  });
}
