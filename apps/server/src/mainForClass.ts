/**
 * `pnpm start:class`: the server opened to the class on the school network (docs/operations.md,
 * "The join address"). It is `pnpm start` listening on every interface (HOST=0.0.0.0) unless HOST
 * already names a non-loopback address: one command on every system, where a `HOST=0.0.0.0 pnpm
 * start` prefix does not work in the Windows shells. The start message then lists the addresses
 * students can open, and the invitation shows one of them.
 */
import { isLoopbackHost } from './joinAddress.ts';

const host = process.env.HOST;
if (!host || isLoopbackHost(host)) process.env.HOST = '0.0.0.0';
await import('./main.ts');
