import type { z } from 'zod';
import { ErrorCode, type ProtocolError } from './errors.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

/**
 * Validates an untrusted packet against a schema and turns a failure into a `bad_request`
 * naming the first offending field, so a refusal tells the sender what to fix.
 */
export function parsePacket<S extends z.ZodType>(schema: S, packet: unknown): Parsed<z.infer<S>> {
  const result = schema.safeParse(packet);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return {
    ok: false,
    error: { code: ErrorCode.BAD_REQUEST, message: `${where}${issue?.message ?? 'invalid packet'}` },
  };
}
