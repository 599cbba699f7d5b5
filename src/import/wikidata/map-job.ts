/**
 * The CPU-bound part of the selection pass: the lines selected are parsed and mapped to
 * statements (on a worker thread, `mapper-worker.ts`, or inline). Plain data in and out.
 */
import type { EntityType } from '../../kg/index.ts';
import type { Rejection } from '../record-preparer.ts';
import { type MapOptions, MappingRejection, mapEntity } from './entity-mapper.ts';
import type { WikidataEntity } from './wikidata-json.ts';

/**
 * Selected lines: their numbers, the types they were selected as (parallel arrays) and their
 * bytes, one after another (`ends[i]` is where line i ends). Bytes rather than strings: the main
 * thread, the busiest, copies them instead of decoding them, and they cross to the worker as one
 * block.
 */
export interface MapJob {
  readonly numbers: number[];
  readonly types: EntityType[];
  readonly bytes: Uint8Array;
  readonly ends: number[];
}

/** The statements of a job as JSON text (with placeholders), the items they refer to, rejections. */
export interface MapResult {
  readonly numbers: number[];
  readonly json: string[];
  /** Item numbers referred to, each once per job. */
  readonly refs: number[];
  readonly rejects: Rejection[];
}

const MAX_REASON_LENGTH = 300;

export function mapJob(job: MapJob, options: MapOptions): MapResult {
  const numbers: number[] = [];
  const json: string[] = [];
  const refs = new Set<number>();
  const rejects: Rejection[] = [];
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  for (let i = 0; i < job.numbers.length; i++) {
    const line = job.numbers[i];
    let entity: WikidataEntity;
    try {
      entity = JSON.parse(
        bytes.toString('utf8', i === 0 ? 0 : job.ends[i - 1], job.ends[i]),
      ) as WikidataEntity;
    } catch (error) {
      rejects.push({ line, reason: `invalid JSON: ${(error as Error).message}`.slice(0, MAX_REASON_LENGTH) });
      continue;
    }
    try {
      const mapped = mapEntity(entity, job.types[i], options);
      numbers.push(line);
      json.push(JSON.stringify(mapped.statement));
      for (const n of mapped.refs) refs.add(n);
    } catch (error) {
      // A line of an unexpected shape (a claim that is not a list, …) fails alone.
      const reason =
        error instanceof MappingRejection
          ? error.message
          : `cannot be read as an entity: ${(error as Error).message}`;
      rejects.push({ line, reason: reason.slice(0, MAX_REASON_LENGTH) });
    }
  }
  return { numbers, json, refs: [...refs], rejects };
}
