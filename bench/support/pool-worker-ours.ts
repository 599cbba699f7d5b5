/** `bench/worker-pool.ts`: the tasks under Quarry's `WorkerPool` protocol. */
import { serveTasks } from '../../src/threads/index.ts';
import { openTasks } from './pool-tasks.ts';

serveTasks(openTasks());
