/** Worker thread of the Wikidata selection pass: maps jobs of selected lines (`map-job.ts`). */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../threads/index.ts';
import type { MapOptions } from './entity-mapper.ts';
import { type MapJob, mapJob } from './map-job.ts';

const options = workerData as MapOptions;
serveTasks((job: MapJob) => mapJob(job, options));
