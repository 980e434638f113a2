import { z } from 'zod';

/**
 * Where students open a lesson (issue 35, docs/protocol.md `GET /api/join-address`): the base of
 * the join link the teacher's invitation, projector view and QR code show, and whether anyone but
 * the teacher's own computer can reach it.
 */
export const JoinReach = {
  /** The deployment's PUBLIC_URL. */
  PUBLIC: 'public',
  /** An address of the server that devices on its network can open. */
  NETWORK: 'network',
  /** The server listens on loopback only: nobody but this computer can join. */
  THIS_COMPUTER: 'this_computer',
  /** The server listens on every interface, but this computer is on no network. */
  NO_NETWORK: 'no_network',
} as const;
export type JoinReach = (typeof JoinReach)[keyof typeof JoinReach];

/** What `GET /api/join-address` answers. */
export const JoinAddress = z.object({
  /** `scheme://host[:port]`, no trailing slash: the join link is `<base>/r/<code>`. */
  base: z.url({ protocol: /^https?$/ }),
  reach: z.enum([JoinReach.PUBLIC, JoinReach.NETWORK, JoinReach.THIS_COMPUTER, JoinReach.NO_NETWORK]),
  /** The computer's other LAN addresses, best first (only when the server chose among several). */
  others: z.array(z.url({ protocol: /^https?$/ })),
});
export type JoinAddress = z.infer<typeof JoinAddress>;
