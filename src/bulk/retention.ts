/**
 * Retention of finished bulk jobs from the environment: `QUARRY_BULK_RETENTION_DAYS` (a
 * non-negative number of days, fractions allowed; unset or 0 keeps jobs until deleted).
 * Throws naming the variable when the value is malformed.
 */
export function retentionMsFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.QUARRY_BULK_RETENTION_DAYS;
  if (raw === undefined || raw.trim() === '') return 0;
  const days = Number(raw);
  if (!Number.isFinite(days) || days < 0) {
    throw new Error(`QUARRY_BULK_RETENTION_DAYS must be a non-negative number of days, got "${raw}"`);
  }
  return Math.round(days * 86_400_000);
}
