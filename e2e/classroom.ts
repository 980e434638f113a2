/**
 * A class of students from node, for the layout spec and the README screenshots: members join by
 * the real HTTP route; most connect a socket that renews its lease as the app does, a few join and
 * never connect ("not here yet"). Close the returned sockets when done.
 */
import { connectMember, joinRoom, type MemberSocket } from './roomSeed.ts';

/** Thirty-nine plausible first names, so rosters in screenshots read like a class. */
export const CLASS_NAMES = [
  'Ana', 'Bo', 'Chidi', 'Dana', 'Elif', 'Farah', 'Gus', 'Hana', 'Ines', 'Jonas', 'Kai', 'Lena', 'Mateo',
  'Nia', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tomás', 'Uma', 'Vik', 'Wen', 'Xavi', 'Yara', 'Zoé',
  'Aiko', 'Ben', 'Carla', 'Dev', 'Emil', 'Fatou', 'Gio', 'Hugo', 'Iris', 'Jin', 'Kofi', 'Lior', 'Mia',
];

export interface Classroom {
  readonly sockets: MemberSocket[];
  close(): void;
}

/** `count` students join the lesson `code`; all but `absent` of them connect. */
export async function fillClass(baseUrl: string, code: string, count: number, absent = 3): Promise<Classroom> {
  const names = CLASS_NAMES.slice(0, count);
  const grants = await Promise.all(names.map((name) => joinRoom(baseUrl, code, name)));
  const sockets = await Promise.all(grants.slice(0, Math.max(0, count - absent)).map((grant) => connectMember(baseUrl, grant)));
  return {
    sockets,
    close: () => {
      for (const s of sockets) s.disconnect();
    },
  };
}
