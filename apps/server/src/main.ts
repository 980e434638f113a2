import { networkInterfaces } from 'node:os';
import { PgliteDirLockedError } from '@wb/db';
import { startApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { startMessage } from './joinAddress.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  if (!config.DATABASE_URL) console.log(`Starting on the embedded database in ${config.PGLITE_DIR} (first start takes a few seconds)…`);
  let app;
  try {
    app = await startApp(config);
  } catch (error) {
    if (error instanceof PgliteDirLockedError) {
      console.error(error.message);
      process.exit(3);
    }
    throw error;
  }
  const message = startMessage({ publicUrl: config.PUBLIC_URL, listenHost: config.HOST, port: app.port, interfaces: networkInterfaces() });
  console.log(['', ...message, `Database: ${app.database.kind}${config.REDIS_URL ? ', Redis adapter on' : ''}`, ''].join('\n  '));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.http.log.info({ signal }, 'shutting down: clients will reconnect and keep their sessions');
    // A stuck shutdown must not hold the port forever.
    setTimeout(() => process.exit(1), config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_RECONNECT_SPREAD_MS + 10_000).unref();
    // SIGTERM (an orchestrator, a balancer-managed stop) drains first; SIGINT (Ctrl-C on a laptop,
    // nobody to drain for) closes at once.
    (signal === 'SIGTERM' ? app.shutdown() : app.close()).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
