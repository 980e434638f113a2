import { JoinReach, type JoinAddress } from '@wb/protocol';
import { useEffect, useState } from 'react';
import { getJoinAddress } from '../api/roomsApi.ts';

/**
 * Where students open the teacher's lesson (`GET /api/join-address`, issue 35): the invitation,
 * the projector view and their QR codes show it, never the loopback name the teacher's own page
 * may have been opened at. Null until the server answers; a failed request falls back to this
 * page's own origin (what the invitation showed before the server was asked).
 */
export function useJoinAddress(enabled: boolean): JoinAddress | null {
  const [address, setAddress] = useState<JoinAddress | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    getJoinAddress().then(
      (answer) => live && setAddress(answer),
      () => live && setAddress({ base: location.origin, reach: JoinReach.NETWORK, others: [] }),
    );
    return () => {
      live = false;
    };
  }, [enabled]);
  return address;
}

/** The one command that opens a laptop's lesson to the class (README, "Teach from your laptop"). */
export const OPEN_TO_CLASS_COMMAND = 'pnpm start:class';

/** Whether students' devices can open `address` (a QR code of it is worth showing). */
export function reachableByClass(address: JoinAddress): boolean {
  return address.reach === JoinReach.PUBLIC || address.reach === JoinReach.NETWORK;
}
