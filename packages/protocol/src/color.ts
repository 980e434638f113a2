/**
 * Member colours: cursors, lock outlines and roster avatars.
 *
 * The server assigns each member a palette index when the membership is made (the least used
 * index in the lesson, lowest first), stores it with the membership, and sends it as
 * `Member.colorIndex`: so colours are distinct within a lesson while the palette lasts, and a
 * member keeps theirs across reloads, reconnects and renames.
 *
 * Every colour has a relative luminance between 0.16 and 0.26, which gives at least 3:1 contrast
 * (WCAG 1.4.11, graphics) both on the white board and on the dark theme's panels (#14171f), so one
 * palette serves both themes. Consecutive indices step 105° round the hue circle and alternate
 * between a darker and a lighter tone, so the first members of a lesson get the most distinct
 * colours.
 */
export const MEMBER_PALETTE = [
  '#2174c8', '#e24cbc', '#767613', '#199a7a', '#964ae2', '#df633a', '#168416', '#6484e6',
  '#d6237d', '#759318', '#157f7f', '#c35ce5', '#a8611b', '#1a9e3b', '#6262e5', '#e4587b',
  '#4b8015', '#1e93bb', '#c520c5', '#a8841b', '#15834c', '#9276e9', '#dc2929', '#3a9c19',
] as const;

/** How many members of one lesson can have a colour of their own. */
export const MEMBER_PALETTE_SIZE = MEMBER_PALETTE.length;

/** The colour of a palette index (any integer: indices past the end wrap round). */
export function memberColor(colorIndex: number): string {
  const i = ((Math.trunc(colorIndex) % MEMBER_PALETTE_SIZE) + MEMBER_PALETTE_SIZE) % MEMBER_PALETTE_SIZE;
  return MEMBER_PALETTE[i]!;
}

/**
 * A colour for someone the client has no membership for (yet): derived from the user id, so
 * still the same on every screen. Only a fallback; members carry their assigned index.
 */
export function colorForUser(userId: string): string {
  let hash = 2166136261; // FNV-1a offset basis
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return memberColor(hash >>> 0);
}
