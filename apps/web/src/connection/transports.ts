/**
 * How the web client reaches the server (docs/operations.md, "Web filters and the polling
 * fallback"). WebSocket first: one connection, no sticky sessions needed. When a school's web
 * filter or proxy breaks the WebSocket upgrade, Socket.IO falls back to HTTP long-polling
 * (`tryAllTransports`), and from polling keeps trying to upgrade to WebSocket in the background
 * (`upgrade`), so a filter that only blocked the first attempt costs nothing for long.
 * Polling sends several requests per session: behind a balancer they must reach the same node
 * (sticky sessions), which the committed balancer configuration does.
 */
export const SOCKET_TRANSPORTS = {
  transports: ['websocket', 'polling'],
  tryAllTransports: true,
  upgrade: true,
} as const satisfies { transports: string[]; tryAllTransports: boolean; upgrade: boolean };
