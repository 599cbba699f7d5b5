/** `bench/worker-pool.ts`: the tasks as a module piscina and tinypool run (a default export). */
import { openTasks } from './pool-tasks.ts';

export default openTasks();
