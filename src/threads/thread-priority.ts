import fs from 'node:fs';
import os from 'node:os';

/**
 * Lowers the calling thread's scheduling priority (Linux threads have their own nice value), so
 * that on a machine whose cores worker threads saturate, the main thread — HTTP requests, result
 * commits — still gets the CPU when it needs it. Best effort: elsewhere it changes nothing.
 */
export function lowerThreadPriority(niceness: number): void {
  if (niceness <= 0) return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, niceness);
  } catch {
    // Not Linux, or not permitted: run at normal priority.
  }
}
