import type { Ack, AckedClientEvent, ClientRequest, ClientReply } from '@wb/protocol';

/**
 * An acknowledged request over the socket: it names an acked client event of the protocol's map
 * (`ClientToServerEvents`) and answers with that event's reply, so a wrong payload or a misread
 * reply does not compile. A reply that does not come in time (or a socket that is down) answers
 * `unavailable`: the caller decides whether to ask again.
 */
export type Request = <E extends AckedClientEvent>(event: E, payload: ClientRequest<E>) => Promise<Ack<ClientReply<E>>>;
