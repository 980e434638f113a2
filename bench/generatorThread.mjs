// A thread of a threaded load generator (loadGenerator.ts, BENCH_GENERATOR_THREADS). A worker
// thread does not get the process's `--import tsx`, so this plain module registers tsx for the
// thread and then loads the generator itself, which finds its shard in `workerData`.
import { register } from 'tsx/esm/api';

register();
await import('./loadGenerator.ts');
