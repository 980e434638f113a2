import { openDatabase, type Database } from '../src/database.ts';
import { storeContract } from './storeContract.ts';

// One in-memory PGlite for the whole file: starting one costs seconds and hundreds of MB.
let database: Database | undefined;

storeContract({
  label: 'embedded PGlite',
  hasPeer: false,
  open: async () => {
    database = await openDatabase({ kind: 'pglite' });
    return { database, peer: null };
  },
  close: async () => {
    await database?.close();
  },
});
