/**
 * A random request id (base64url, 16 bytes). crypto.getRandomValues works on plain-http LAN
 * addresses too, where crypto.randomUUID is missing (it needs a secure context): classrooms often
 * open the teacher's laptop by IP.
 */
export function randomId(bytes = 16): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...buf)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
