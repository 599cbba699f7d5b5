/** `bench/worker-pool.ts`: the tasks under Quarry's `WorkerPool` protocol. */
import { serveTasks } from '../../src/worker-pool.ts';
import { openTasks } from './pool-tasks.ts';

serveTasks(openTasks());
