import { randomBytes } from 'node:crypto';

/**
 * Job and report ids: opaque, URL-safe, with a recognisable syntax so that a malformed id is a
 * 400 and a well-formed unknown one a 404 (docs/api.md#job-ids). 96 random bits each: unguessable,
 * so one token cannot probe for another's jobs.
 */
const JOB_ID = /^bj_[0-9a-f]{24}$/;
const REPORT_ID = /^rp_[0-9a-f]{24}$/;

/** A new random job id: `bj_` and 24 lowercase hex digits. */
export function newJobId(): string {
  return `bj_${randomBytes(12).toString('hex')}`;
}

/** A new random coverage report id: `rp_` and 24 lowercase hex digits. */
export function newReportId(): string {
  return `rp_${randomBytes(12).toString('hex')}`;
}

export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}

export function isReportId(value: string): boolean {
  return REPORT_ID.test(value);
}
