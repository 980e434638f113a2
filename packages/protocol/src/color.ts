/**
 * A stable colour per user, the same on every screen: derived from the user id, not assigned.
 * Hues are spread by the golden angle over a hash of the id; lightness is fixed for contrast
 * against the white board and white label text.
 */
export function colorForUser(userId: string): string {
  let hash = 2166136261; // FNV-1a offset basis
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  const hue = Math.round(((hash >>> 0) * 137.508) % 360);
  return `hsl(${hue} 70% 42%)`;
}
