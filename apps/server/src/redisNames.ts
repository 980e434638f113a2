/**
 * The names a deployment uses in a shared Redis (REDIS_PREFIX, docs/operations.md): rate-limit
 * keys and the Socket.IO adapter's channels. Unset, today's names, which nodes of an older release
 * also use, so a rolling upgrade keeps every node hearing the others.
 */
export interface RedisNames {
  /** Prefix of every rate-limit bucket key. */
  limitKeys: string;
  /** The adapter's channel prefix (classic `key`, sharded `channelPrefix`); undefined: the adapter's default, `socket.io`. */
  adapterChannels: string | undefined;
}

export function redisNames(prefix: string | undefined): RedisNames {
  return prefix ? { limitKeys: `${prefix}:limit:`, adapterChannels: `${prefix}:socket.io` } : { limitKeys: 'wb:limit:', adapterChannels: undefined };
}
